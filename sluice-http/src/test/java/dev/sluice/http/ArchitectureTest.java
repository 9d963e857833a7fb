package dev.sluice.http;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The admission flow every door takes and the answers every HTTP door gives are framework-free: the
 * Javalin plugin, the servlet filter and the gRPC interceptor map them onto their own requests and
 * responses, so no framework may appear here.
 */
class ArchitectureTest {

  private static final JavaClasses MODULE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice.http");

  @Test
  void importsNoFrameworkClientOrLoggingBackend() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.javalin..",
            "org.eclipse.jetty..",
            "jakarta.servlet..",
            "org.apache.catalina..",
            "io.grpc..",
            "io.micrometer..",
            "io.lettuce..",
            "io.netty..",
            "org.slf4j..",
            "ch.qos.logback..")
        .because("each door maps its own request and response onto these answers (HttpAnswer)")
        .check(MODULE);
  }

  @Test
  void knowsNoSluiceModuleButTheCoreAndConfiguration() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideOutsideOfPackages(
            "dev.sluice.javalin..",
            "dev.sluice.servlet..",
            "dev.sluice.grpc..",
            "dev.sluice.redis..",
            "dev.sluice.client..",
            "dev.sluice.ratelimit..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.concurrency.internal..")
        .because("doors sit above this module; the engine is not API")
        .check(MODULE);
  }
}
