package dev.sluice.javalin;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The plugin uses the core only: a Redis store is found through ServiceLoader, never imported. */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.javalin");

  @Test
  void dependsOnlyOnTheModulesBelowIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.client..",
            "dev.sluice.servlet..",
            "dev.sluice.grpc..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..")
        .because(
            "modules depend one way (docs/ARCHITECTURE.md); no door knows another: what they share"
                + " is in sluice-http")
        .check(MODULE);
  }

  @Test
  void neverImportsTheRedisStore() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.sluice.redis..", "io.lettuce..")
        .because(
            "global scope is found through StoreLoader (ServiceLoader) when sluice.redis.uri is"
                + " set; the plugin works without limiter-redis on the class path")
        .check(MODULE);
  }

  @Test
  void reloadsNeverCallBackIntoThePlugin() {
    noClasses()
        .that()
        .haveSimpleName("Reloads")
        .should()
        .dependOnClassesThat()
        .areAssignableTo(SluicePlugin.class)
        .because("it is handed the objects it reads and writes (the limiters, the rules, the"
            + " store, the properties in force), so a reload runs one way: Reloads -> limiter-config"
            + " -> Limiters -> the core")
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
