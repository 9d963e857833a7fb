package dev.sluice.build;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noCodeUnits;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

/**
 * The layering of limiter-core as docs/ARCHITECTURE.md states it, checked on the compiled main
 * classes (tests excluded).
 */
class ArchitectureTest {

  private static final String CONTRACT = "dev.sluice.concurrency";
  private static final String INTERNAL = "dev.sluice.concurrency.internal";
  private static final String LIMIT = "dev.sluice.concurrency.limit";

  /**
   * The engine's one door (see its Javadoc): the only class of {@link #INTERNAL} the contract may
   * name, from its static factories. The engine implements the contract, so the contract calling
   * down into it is the one dependency that points up; every other one points down.
   */
  private static final String DOOR = INTERNAL + ".Engine";

  private static final JavaClasses CORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages("dev.sluice");

  @Test
  void coreImportsNoFrameworkClientOrLoggingBackend() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.javalin..",
            "org.eclipse.jetty..",
            "jakarta.servlet..",
            "io.micrometer..",
            "io.lettuce..",
            "io.netty..",
            "io.github.resilience4j..",
            "org.slf4j..",
            "ch.qos.logback..",
            "org.apache.logging..",
            "org.apache.log4j..",
            "org.apache.commons.logging..",
            "java.util.logging..")
        .because("the core is plain Java: it logs through java.lang.System.Logger")
        .check(CORE);
  }

  @Test
  void coreDependsOnTheJdkAndSnakeYamlOnly() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "com.sun.management..", // the JDK's jdk.management module: process and machine CPU
            "dev.sluice..",
            "org.yaml.snakeyaml..")
        .because("docs/ARCHITECTURE.md: the JDK plus a YAML parser")
        .check(CORE);
  }

  @Test
  void coreKnowsNoOtherSluiceModule() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.sluice.redis..",
            "dev.sluice.javalin..",
            "dev.sluice.client..",
            "dev.sluice.demo..",
            "dev.sluice.loadtest..",
            "dev.sluice.benchmarks..")
        .check(CORE);
  }

  @Test
  void onlyTheConcurrencyPackagesUseTheEngine() {
    noClasses()
        .that(not(resideInAPackage(CONTRACT + "..")))
        .should()
        .dependOnClassesThat()
        .resideInAPackage(INTERNAL + "..")
        .check(CORE);
  }

  @Test
  void theContractReachesTheEngineOnlyThroughItsDoor() {
    noClasses()
        .that()
        .resideInAPackage(CONTRACT)
        .should()
        .dependOnClassesThat(resideInAPackage(INTERNAL).and(not(name(DOOR))))
        .because("the contract constructs the engine through " + DOOR + " and names nothing else")
        .check(CORE);
  }

  @Test
  void theContractReachesTheEngineOnlyFromStaticFactories() {
    noCodeUnits()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage(CONTRACT)
        .and()
        .doNotHaveModifier(JavaModifier.STATIC)
        .should(accessClassesIn(INTERNAL))
        .because("the contract names no engine class but to construct it in a static factory")
        .check(CORE);
  }

  @Test
  void theContractsSignaturesNameNoEngineClass() {
    codeUnits()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage(CONTRACT)
        .should()
        .haveRawReturnType(not(resideInAPackage(INTERNAL)))
        .andShould(haveNoParameterIn(INTERNAL))
        .check(CORE);
    fields()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage(CONTRACT)
        .should()
        .haveRawType(not(resideInAPackage(INTERNAL)))
        .check(CORE);
    noClasses()
        .that()
        .resideInAPackage(CONTRACT)
        .should()
        .beAssignableTo(resideInAPackage(INTERNAL))
        .check(CORE);
  }

  @Test
  void limitSourcesKnowNothingElseOfTheConcurrencyPackages() {
    noClasses()
        .that()
        .resideInAPackage(LIMIT)
        .should()
        .dependOnClassesThat(resideInAnyPackage(CONTRACT + "..").and(not(resideInAPackage(LIMIT))))
        .because("a limit source is a strategy the limiter uses, not the other way round")
        .check(CORE);
  }

  @Test
  void thePackagesOfTheCoreFormNoCycle() {
    // one slice per package: a sub-package is a layer of its own (concurrency.internal is not
    // concurrency), so a cycle between the contract and its engine shows
    slices()
        .matching("dev.sluice.(**)")
        .should()
        .beFreeOfCycles()
        .ignoreDependency(resideInAPackage(CONTRACT), name(DOOR))
        .because("imports point down: time, request, store, rate, rules, concurrency.limit,"
            + " concurrency, concurrency.internal; the contract's factories reach the engine"
            + " through " + DOOR + " only")
        .check(CORE);
  }

  private static ArchCondition<JavaCodeUnit> accessClassesIn(String pkg) {
    return new ArchCondition<>("access classes in " + pkg) {
      @Override
      public void check(JavaCodeUnit unit, ConditionEvents events) {
        for (JavaAccess<?> access : unit.getAccessesFromSelf()) {
          if (access.getTargetOwner().getPackageName().equals(pkg)) {
            events.add(SimpleConditionEvent.satisfied(access, access.getDescription()));
          }
        }
      }
    };
  }

  private static ArchCondition<JavaCodeUnit> haveNoParameterIn(String pkg) {
    return new ArchCondition<>("have no parameter of a type in " + pkg) {
      @Override
      public void check(JavaCodeUnit unit, ConditionEvents events) {
        for (JavaClass type : unit.getRawParameterTypes()) {
          if (type.getPackageName().equals(pkg)) {
            events.add(SimpleConditionEvent.violated(
                unit, unit.getFullName() + " takes a " + type.getName()));
          }
        }
      }
    };
  }
}
