package dev.sluice.demo;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The demo is a user of the plugin: Redis only at run time (sluice.redis.uri), no client or load
 * test code.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.demo");

  @Test
  void dependsOnlyOnTheModulesBelowIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.redis..",
            "dev.sluice.client..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..")
        .because("modules depend one way (docs/ARCHITECTURE.md)")
        .check(MODULE);
  }

  @Test
  void readsItsSettingsThroughLimiterConfigNotThePlugin() {
    noClasses()
        .that()
        .haveSimpleName("DemoSettings")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.javalin..")
        .because("the service's own keys (demo.*, server.port) are layered and checked by"
            + " limiter-config, as any application's would be, whichever door serves it")
        .check(MODULE);
  }

  @Test
  void usesNoOtherProjectsLimiter() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("com.netflix.concurrency.limits..", "io.javalin.plugin.bundled..")
        .because("the peers the load test compares with are found through ServiceLoader"
            + " (demo.limiter-peer, demo.overhead-peer); the demo is a plain user of Sluice")
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
}
