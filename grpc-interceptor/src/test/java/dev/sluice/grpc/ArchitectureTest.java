package dev.sluice.grpc;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The gRPC door is a user of the library, as the Javalin plugin is: it limits through the core's
 * public limiter, reads its settings through limiter-config, and knows no other door.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.grpc");

  @Test
  void dependsOnNoOtherDoorOrApplication() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.javalin..",
            "dev.sluice.servlet..",
            "dev.sluice.ratelimit..",
            "dev.sluice.client..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..",
            "dev.sluice.redis..",
            "io.javalin..",
            "org.eclipse.jetty..",
            "jakarta.servlet..",
            "io.netty..",
            "io.grpc.netty..")
        .because(
            "modules depend one way (docs/ARCHITECTURE.md); the transport is the application's")
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
        .haveSimpleName("SluiceGrpc")
        .because("everything else of the door is package-private")
        .check(MODULE);
    classes()
        .that()
        .areNotPublic()
        .should()
        .notHaveModifier(JavaModifier.PUBLIC)
        .check(MODULE);
  }

  @Test
  void admitsThroughTheSharedFlowAndAnswersWithItsOwnStatuses() {
    noClasses()
        .should()
        .dependOnClassesThat(resideInAPackage("dev.sluice.http")
            .and(not(name("dev.sluice.http.AdmissionFlow")
                .or(nameStartingWith("dev.sluice.http.AdmissionFlow$"))
                .or(name("dev.sluice.http.Passage")))))
        .because("the interceptor takes the doors' admission steps from sluice-http, but answers"
            + " with gRPC statuses, never an HTTP door's problem+json")
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
