package dev.sluice.config;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Configuration is framework-free, so every door (the Javalin plugin today, a servlet filter or a
 * gRPC interceptor tomorrow) and the demo read properties the same way.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.config");

  @Test
  void importsNoFrameworkClientOrLoggingBackend() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.javalin..",
            "org.eclipse.jetty..",
            "jakarta.servlet..",
            "io.grpc..",
            "io.micrometer..",
            "io.lettuce..",
            "io.netty..",
            "org.slf4j..",
            "ch.qos.logback..",
            "org.apache.logging..",
            "org.apache.log4j..",
            "java.util.logging..")
        .because("a door passes its own warnings (ConfigWarnings); the module is plain Java")
        .check(MODULE);
  }

  @Test
  void dependsOnTheCoreOnly() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
            "dev.sluice.servlet..",
            "dev.sluice.grpc..",
            "dev.sluice.http..",
            "dev.sluice.ratelimit..",
            "dev.sluice.redis..",
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
        .because("limiters are described by the contract's LimiterSpec, never the engine")
        .check(MODULE);
  }
}
