package dev.sluice.micrometer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The layering of docs/ARCHITECTURE.md: the meters know the core and Micrometer, no door. */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.micrometer");

  @Test
  void knowsTheCoreAndMicrometerAndNoDoor() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.micrometer..",
            "dev.sluice.concurrency",
            "dev.sluice.concurrency.limit",
            "dev.sluice.rate",
            "dev.sluice.rules",
            "dev.sluice.store",
            "io.micrometer..",
            "java..")
        .because("every door binds the same meters; the engine is not API")
        .check(MODULE);
  }
}
