package dev.sluice.ratelimit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit service is a user of the library: it counts through the core's rate limiters and
 * store interface, finds Redis through ServiceLoader, and reads its properties through
 * limiter-config.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.ratelimit");

  @Test
  void reachesRedisOnlyThroughTheStoreInterface() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.sluice.redis..", "io.lettuce..")
        .because("limiter-redis is found through ServiceLoader when sluice.redis.uri is set")
        .check(MODULE);
  }

  @Test
  void dependsOnNoOtherDoorOrApplication() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
            "dev.sluice.client..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..",
            "io.javalin..",
            "org.eclipse.jetty..")
        .because("modules depend one way (docs/ARCHITECTURE.md)")
        .check(MODULE);
  }

  @Test
  void neverReachesIntoTheCoresEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.concurrency.internal..")
        .because("the service counts through the core's public rate and store interfaces")
        .check(MODULE);
  }
}
