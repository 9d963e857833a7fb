package dev.sluice.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The caller's side builds on the core and the Redis store, never on the server-side plugin. */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.client");

  @Test
  void dependsOnlyOnTheModulesBelowIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
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
