package dev.sluice.loadtest;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The load test talks HTTP: it uses limiter-client (and the core's parsers) as a client would,
 * never the service's code. Inside it, engine, sampling and report are layers that point down.
 */
class ArchitectureTest {

  private static final String ENGINE = "dev.sluice.loadtest.engine..";
  private static final String SAMPLING = "dev.sluice.loadtest.sampling..";
  private static final String REPORT = "dev.sluice.loadtest.report..";

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.loadtest");

  @Test
  void dependsOnlyOnTheModulesBelowIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.demo..",
            "dev.sluice.config..",
            "dev.sluice.javalin..",
            // the rate-limit service's own code; its test-jar's simulated proxy is a client
            "dev.sluice.ratelimit",
            "dev.sluice.redis..",
            "dev.sluice.benchmarks..")
        .because("modules depend one way (docs/ARCHITECTURE.md)")
        .check(MODULE);
  }

  @Test
  void engineImportsNoOtherLoadtestPackage() {
    noClasses()
        .that()
        .resideInAPackage(ENGINE)
        .should()
        .dependOnClassesThat(loadtestOutside(ENGINE))
        .check(MODULE);
  }

  @Test
  void samplingImportsOnlyTheEngine() {
    noClasses()
        .that()
        .resideInAPackage(SAMPLING)
        .should()
        .dependOnClassesThat(loadtestOutside(SAMPLING, ENGINE))
        .check(MODULE);
  }

  @Test
  void reportImportsOnlyTheEngineAndSampling() {
    noClasses()
        .that()
        .resideInAPackage(REPORT)
        .should()
        .dependOnClassesThat(loadtestOutside(REPORT, ENGINE, SAMPLING))
        .check(MODULE);
  }

  /** A class of the load test outside the given packages. */
  private static DescribedPredicate<JavaClass> loadtestOutside(String... packages) {
    return resideInAPackage("dev.sluice.loadtest..").and(not(resideInAnyPackage(packages)));
  }

  @Test
  void onlyTheEnvoyScenarioUsesTheSimulatedProxy() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.sluice.loadtest.envoy..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.ratelimit..")
        .because("the rate-limit service's test-jar is on the class path for the envoy-ratelimit"
            + " scenario's simulated Envoy proxies")
        .check(MODULE);
  }

  @Test
  void neverReachesIntoTheCoresEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.concurrency.internal..")
        .because("the engine is not API: limiters are built through the contract's factories")
        .check(MODULE);
  }

  @Test
  void onlyTheJepsenScenarioUsesTheCoresTestKit() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.sluice.loadtest.jepsen..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.testing..")
        .because("limiter-core's test-jar is on the class path for the jepsen scenario's history"
            + " checkers and fault proxy, not for the load test at large")
        .check(MODULE);
  }
}
