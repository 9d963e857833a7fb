package dev.sluice.testing;

import java.lang.reflect.Method;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Mutation testing only: lets PIT's mutation minions find a test class's tests without running
 * their bodies.
 *
 * <p>PIT's JUnit 5 plugin finds the tests of a class by executing it, and every minion it starts
 * (one per mutated class, and again after each mutant that timed out) first finds the tests of
 * every class covering its mutants that way, before it tries a single mutant: a whole, unmutated
 * run of those tests that decides nothing. While that search runs, this interceptor skips each
 * test's body and its {@code @BeforeEach}, {@code @AfterEach}, {@code @BeforeAll} and
 * {@code @AfterAll} methods, so the tests are found (their start and end are still reported) in a
 * fraction of the time. The runs that judge the mutants, and PIT's coverage run, go through
 * another path of PIT's and run everything.
 *
 * <p>It acts only where the calling stack holds both PIT's test finder and its mutation minion, so
 * surefire, the IDE and PIT's coverage run are untouched; it is enabled only in PIT's minions (the
 * parent POM's pitest-maven {@code argLine} turns on JUnit's extension auto-detection, which finds
 * it through {@code META-INF/services}). Should PIT rename those classes, it does nothing and PIT
 * is as slow and as right as without it.
 */
public final class PitDiscoveryShortcut implements InvocationInterceptor {

  private static final String FINDER = "org.pitest.junit5.JUnit5TestUnitFinder";
  private static final String MUTATION_MINION =
      "org.pitest.mutationtest.execute.MutationTestMinion";
  private static final Set<String> MARKERS = Set.of(FINDER, MUTATION_MINION);

  /** Whether this thread is in a mutation minion's search for tests. */
  static boolean findingTests() {
    return StackWalker.getInstance()
            .walk(frames -> frames
                .map(StackWalker.StackFrame::getClassName)
                .filter(MARKERS::contains)
                .distinct()
                .count())
        == MARKERS.size();
  }

  private static void skipWhileFindingTests(Invocation<Void> invocation) throws Throwable {
    if (findingTests()) {
      invocation.skip();
    } else {
      invocation.proceed();
    }
  }

  @Override
  public void interceptTestMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }

  @Override
  public void interceptTestTemplateMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }

  @Override
  public void interceptBeforeAllMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }

  @Override
  public void interceptBeforeEachMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }

  @Override
  public void interceptAfterEachMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }

  @Override
  public void interceptAfterAllMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    skipWhileFindingTests(invocation);
  }
}
