package dev.sluice.demo;

import io.javalin.http.Context;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** The heavy jobs of the {@code frames} engine: CPU burnt compressing generated frames in the JVM. */
final class JobEndpoints implements JobEngine {

  /** Set by the first before-handler: when the request reached the service. */
  static final String RECEIVED = "demo.receivedNanos";

  static final String CPU_MILLIS = "demo.cpuMillis";
  static final String WAIT_MILLIS = "demo.waitMillis";

  private final FrameTranscoder transcoder;
  private final int maxCpuMillis;
  private final int maxWaitMillis;
  private final AtomicLong ids = new AtomicLong();
  /** Jetty's request thread pool, once the server exists: where a job's CPU work runs after its wait. */
  private volatile Executor workers = ForkJoinPool.commonPool();

  JobEndpoints(FrameTranscoder transcoder, int maxCpuMillis, int maxWaitMillis) {
    this.transcoder = transcoder;
    this.maxCpuMillis = maxCpuMillis;
    this.maxWaitMillis = maxWaitMillis;
  }

  /** Call from {@code config.jetty.modifyServer}: jobs that waited continue on Jetty's own threads. */
  void runOn(Executor jettyThreads) {
    this.workers = jettyThreads;
  }

  /**
   * Runs before the limiter: a bad {@code cpuMillis} or {@code waitMillis} is answered 400 without
   * taking a queue place or a permit from a valid job.
   */
  @Override
  public void validate(Context ctx) {
    ctx.attribute(
        CPU_MILLIS, JobMillis.CPU.parse(ctx.queryParam(JobMillis.CPU.parameter), maxCpuMillis));
    ctx.attribute(
        WAIT_MILLIS, JobMillis.WAIT.parse(ctx.queryParam(JobMillis.WAIT.parameter), maxWaitMillis));
  }

  /**
   * A job: first it waits {@code waitMillis} (reading the footage from storage), then it burns
   * {@code cpuMillis} of CPU. The wait holds no thread: the handler hands Javalin a future that a
   * timer completes (Javalin suspends the request, so the limiter's permit stays taken, as a real
   * job's would while it reads), and the CPU work then runs on Jetty's thread pool, where a job
   * without a wait runs it directly.
   */
  @Override
  public void job(Context ctx, String endpoint) {
    long started = System.nanoTime();
    int cpu = parsed(ctx, CPU_MILLIS, JobMillis.CPU, maxCpuMillis);
    int wait = parsed(ctx, WAIT_MILLIS, JobMillis.WAIT, maxWaitMillis);
    Long received = ctx.attribute(RECEIVED);
    long arrival = received == null ? started : received;
    if (wait == 0) {
      ctx.json(work(endpoint, arrival, started, cpu, 0));
      return;
    }
    Executor afterWait = CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, workers);
    ctx.future(() -> CompletableFuture.supplyAsync(
            () -> work(endpoint, arrival, started, cpu, wait), afterWait)
        .thenAccept(ctx::json));
  }

  /**
   * Checks a job that did not come over HTTP (the gRPC door), as {@link #validate} checks a
   * request's query: {@code cpuMillis} required, {@code waitMillis} absent means 0.
   *
   * @return {@code {cpuMillis, waitMillis}}
   * @throws BadRequest naming the parameter and the value
   */
  int[] check(String cpuMillis, String waitMillis) {
    return new int[] {
      JobMillis.CPU.parse(cpuMillis, maxCpuMillis), JobMillis.WAIT.parse(waitMillis, maxWaitMillis)
    };
  }

  /**
   * The same job for a door without a Javalin context (gRPC), already admitted: its wait holds no
   * thread, and its CPU work runs on Jetty's thread pool as an HTTP job's does.
   *
   * @param receivedNanos when the call reached the service ({@link System#nanoTime()})
   */
  CompletableFuture<JobResult> run(String endpoint, long receivedNanos, int cpu, int wait) {
    long started = System.nanoTime();
    Executor on = wait == 0
        ? workers
        : CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, workers);
    return CompletableFuture.supplyAsync(
        () -> work(endpoint, receivedNanos, started, cpu, wait), on);
  }

  @Override
  public String describe() {
    return String.format(
        Locale.ROOT,
        "frames (%.4f frames/ms %s)",
        transcoder.framesPerMilli(),
        transcoder.measured() ? "calibrated" : "set by " + DemoSettings.FRAMES_PER_MILLI);
  }

  private static int parsed(Context ctx, String attribute, JobMillis millis, int max) {
    Integer checked = ctx.attribute(attribute);
    return checked != null ? checked : millis.parse(ctx.queryParam(millis.parameter), max);
  }

  private JobResult work(String endpoint, long received, long started, int cpu, int wait) {
    long id = ids.incrementAndGet();
    int frames = transcoder.framesFor(cpu);
    long cpuBefore = threadCpuNanos();
    long bytes = transcoder.compress(frames, id);
    long cpuAfter = threadCpuNanos();
    long finished = System.nanoTime();
    return new JobResult(
        String.format(Locale.ROOT, "%s-%06d", endpoint, id),
        endpoint,
        cpu,
        wait,
        frames,
        bytes,
        (started - received) / 1e6,
        (finished - started) / 1e6,
        cpuBefore < 0 || cpuAfter < 0 ? -1 : (cpuAfter - cpuBefore) / 1e6);
  }

  /** This thread's CPU time in nanoseconds, or -1 where the JVM cannot tell. */
  private static long threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
  }
}
