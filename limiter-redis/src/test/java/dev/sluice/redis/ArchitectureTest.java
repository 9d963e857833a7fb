package dev.sluice.redis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** limiter-redis implements the core's store SPI and knows no module above it. */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.redis");

  @Test
  void dependsOnlyOnTheModulesBelowIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
            "dev.sluice.client..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..")
        .because("modules depend one way (docs/ARCHITECTURE.md)")
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
