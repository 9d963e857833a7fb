package dev.sluice.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The engine's running {@code ffmpeg} and {@code ffprobe} processes. Every child is waited for in
 * short slices, so the request thread notices in time that its client hung up or that the child
 * ran past its time; either way the child is killed and reaped before the job's files are removed,
 * and no child outlives its request. {@link #endAll} is the service's stop: it kills what still runs
 * and refuses new children, so a stop does not wait for transcodes of minutes.
 */
final class ChildProcesses {

  /** How often a running child's request is checked; a hung-up client costs at most this much work. */
  private static final long SLICE_MILLIS = 100;

  private final Set<Process> running = ConcurrentHashMap.newKeySet();
  private boolean stopping;

  /**
   * Runs {@code command} with stdout and stderr into files of the job's folder (a pipe nobody reads
   * would block the child once full) and answers its exit code.
   *
   * @param wanted false once the client is gone: the child is killed and {@link JobProblem#clientGone} thrown
   * @throws JobProblem the client went away, the child ran past {@code timeout}, or the service is stopping
   */
  int run(List<String> command, Path stdout, Path stderr, Duration timeout, BooleanSupplier wanted)
      throws IOException {
    Process process = start(new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
        .redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile()));
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (!process.waitFor(SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
        if (!wanted.getAsBoolean()) {
          throw JobProblem.clientGone();
        }
        if (System.nanoTime() - deadline > 0) {
          throw JobProblem.timedOut(command.get(0) + " ran longer than demo.ffmpeg.timeout ("
              + timeout.toMillis() + " ms)");
        }
      }
      int exit = process.exitValue();
      if (exit != 0 && isStopping()) {
        throw JobProblem
            .stopping(); // killed by endAll: its exit code says nothing about the footage
      }
      return exit;
    } catch (InterruptedException e) {
      // Jetty interrupts request threads still running when its stop gives up on them
      Thread.currentThread().interrupt();
      throw JobProblem.stopping();
    } finally {
      kill(process);
      running.remove(process);
    }
  }

  /** Kills every running child and refuses new ones (the service is stopping). */
  void endAll() {
    synchronized (this) {
      stopping = true;
    }
    running.forEach(ChildProcesses::kill);
  }

  private Process start(ProcessBuilder builder) throws IOException {
    // one lock with endAll, so a child cannot start after the stop has killed the others
    synchronized (this) {
      if (stopping) {
        throw JobProblem.stopping();
      }
      Process process = builder.start();
      running.add(process);
      return process;
    }
  }

  private synchronized boolean isStopping() {
    return stopping;
  }

  /** SIGKILL and reap: ffmpeg holds no state worth a graceful end, and a zombie would still count. */
  private static void kill(Process process) {
    if (!process.isAlive()) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    boolean interrupted = false;
    while (true) {
      try {
        process.waitFor();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // reap it anyway, then pass the interrupt on
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }
}
