package dev.sluice.javalin;

import dev.sluice.rules.RuleOutcomes;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The holder a request's rate decisions are written into. A platform thread keeps one and reuses it
 * for every request it serves (Jetty's pool keeps its threads, so the rules cost no object per
 * request); a virtual thread serves one request and ends, so it gets a new holder rather than a
 * thread-local map of its own, which would cost more.
 */
final class OutcomeHolder {

  private static final ThreadLocal<RuleOutcomes> PER_THREAD =
      ThreadLocal.withInitial(RuleOutcomes::new);

  /** {@code Thread::isVirtual} on JDK 21 and later; null before (every thread is a platform one). */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private OutcomeHolder() {}

  /** The calling thread's holder; its previous answers are cleared when it is filled again. */
  static RuleOutcomes current() {
    Thread thread = Thread.currentThread();
    return isVirtual(thread) ? new RuleOutcomes() : PER_THREAD.get();
  }

  static boolean isVirtual(Thread thread) {
    if (IS_VIRTUAL == null) {
      return false;
    }
    try {
      return (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (Throwable e) {
      throw new IllegalStateException("Thread::isVirtual failed", e);
    }
  }

  private static MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // JDK 17: no virtual threads
    }
  }
}
