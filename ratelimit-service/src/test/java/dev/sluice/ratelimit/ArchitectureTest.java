package dev.sluice.ratelimit;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sluice.redis.RedisConnection;
import dev.sluice.redis.RedisScript;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit service is a user of the library: it counts through the core's rate limiters and
 * store interface, finds Redis through ServiceLoader, keeps the RLQS demands in Redis through
 * limiter-redis's {@code RedisConnection} (one class), and reads its properties through
 * limiter-config.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.ratelimit");

  @Test
  void reachesRedisOnlyThroughTheStoreInterfaceAndTheLibrarysConnection() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName(RedisDemands.class.getName())
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.sluice.redis..")
        .because("limiter-redis is found through ServiceLoader when sluice.redis.uri is set")
        .check(MODULE);
    noClasses()
        .should()
        .dependOnClassesThat(resideInAPackage("dev.sluice.redis..")
            .and(not(belongToAnyOf(RedisConnection.class, RedisScript.class))))
        .because("a module keeps state of its own in Redis through RedisConnection only")
        .check(MODULE);
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.lettuce..")
        .because("the RLQS demands reach Redis through limiter-redis's RedisConnection")
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
