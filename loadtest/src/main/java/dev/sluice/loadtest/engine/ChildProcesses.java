package dev.sluice.loadtest.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The load test's long-lived child processes (services, replicas, {@code redis-server}), stopped
 * when the load test's JVM ends, however it ends short of {@code kill -9}: a run interrupted with
 * Ctrl-C or SIGTERM would otherwise leave them running, holding ports and cores. A scenario still
 * stops its own children when it is done; this only catches what an interrupted run leaves.
 */
public final class ChildProcesses {

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
  private static final long GRACE_SECONDS = 5;

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(
            () -> stopAll(TimeUnit.SECONDS.toNanos(GRACE_SECONDS)), "loadtest-stop-children"));
  }

  private ChildProcesses() {}

  /** Registers {@code process} to be stopped with this JVM; it is forgotten once it exits. */
  public static Process stopWithThisJvm(Process process) {
    LIVE.add(process);
    var unused = process.onExit().thenRun(() -> LIVE.remove(process));
    return process;
  }

  /** How many registered children are still running. */
  static int running() {
    LIVE.removeIf(p -> !p.isAlive());
    return LIVE.size();
  }

  /**
   * Asks every running child to stop (SIGTERM), waits up to {@code graceNanos} in all for them
   * (the hook: {@value #GRACE_SECONDS} s), then kills the rest.
   */
  static void stopAll(long graceNanos) {
    for (Process p : LIVE) {
      p.destroy();
    }
    long deadline = System.nanoTime() + graceNanos;
    for (Process p : LIVE) {
      long left = deadline - System.nanoTime();
      try {
        if (left <= 0 || !p.waitFor(left, TimeUnit.NANOSECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
