package dev.sluice.servlet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The filter knows the servlet API, the core, limiter-config and sluice-http: no container (it
 * runs in any Servlet 6 one), no other door.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.servlet");

  @Test
  void dependsOnNoContainerAndNoOtherDoor() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
            "dev.sluice.grpc..",
            "dev.sluice.ratelimit..",
            "dev.sluice.client..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..",
            "dev.sluice.redis..",
            "io.javalin..",
            "org.eclipse.jetty..",
            "org.apache.catalina..",
            "org.apache.tomcat..",
            "org.slf4j..")
        .because("modules depend one way (docs/ARCHITECTURE.md); the container is the"
            + " application's")
        .check(MODULE);
  }

  @Test
  void touchesMicrometerOnlyWhereItsPresenceIsChecked() {
    noClasses()
        .that()
        .doNotHaveSimpleName("FilterMeters")
        .and()
        .doNotHaveFullyQualifiedName("dev.sluice.servlet.SluiceFilter$Builder")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.micrometer..")
        .because("Micrometer is optional for the filter's users: FilterMeters makes the meters once"
            + " it found Micrometer; the builder only takes a registry the application has")
        .check(MODULE);
  }

  @Test
  void neverReachesIntoTheCoresEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.concurrency.internal..")
        .because("a door limits through the core's public ConcurrencyLimiter")
        .check(MODULE);
  }

  @Test
  void thePublicApiIsTheOneEntry() {
    classes()
        .that()
        .arePublic()
        .and()
        .areTopLevelClasses()
        .should()
        .haveSimpleName("SluiceFilter")
        .because("everything else of the door is package-private")
        .check(MODULE);
  }

  @Test
  void matchesPathsThroughTheSharedPathLimiter() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.sluice.request.ResourcePattern")
        .because("a limiter's path is matched by limiter-config's PathLimiter, which the servlet"
            + " filter and the gRPC interceptor share")
        .check(MODULE);
  }
}
