package dev.sluice.javalin;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether a thread is virtual, on JDK 17 too. A platform thread keeps what a request's decision
 * needs (its passage, its request info) and reuses it for every request it serves (Jetty's pool
 * keeps its threads, so a decision costs no object per request); a virtual thread serves one
 * request and ends, so it gets new ones rather than a thread-local map of its own, which would
 * cost more.
 */
final class VirtualThreads {

  /** {@code Thread::isVirtual} on JDK 21 and later; null before (every thread is a platform one). */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private VirtualThreads() {}

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
