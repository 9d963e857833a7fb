package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.GrpcTransport;
import dev.sluice.loadtest.engine.PushbackCheck;
import dev.sluice.loadtest.engine.RetryingGrpcClient;
import dev.sluice.loadtest.engine.Transport;
import dev.sluice.loadtest.sampling.ServerSample;
import dev.sluice.loadtest.sampling.ThreadCount;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * One overload run through the demo's gRPC door: the run's transcode jobs go as calls to {@code
 * transcode.Transcoder/Transcode}; before it, a few calls one at a time give the service's unloaded
 * thread count; from its first arrival, the thread count is read every {@link #THREAD_PERIOD_MILLIS}
 * and a retrying client ({@link RetryingGrpcClient}) sends a share of the rate beside it, its
 * attempts recorded.
 */
final class GrpcDoorRun implements AutoCloseable {

  /** Calls sent one at a time for the unloaded thread count. */
  static final int UNLOADED_CALLS = 5;
  /** How often the thread count is read. */
  static final long THREAD_PERIOD_MILLIS = 100;
  /** The retrying client's rate as a share of the run's, at least one call a second. */
  static final double RETRYING_SHARE = 0.05;
  /** The retrying client's deadline per call, over all its attempts: past the demo's queue timeout. */
  static final Duration RETRYING_DEADLINE = Duration.ofSeconds(30);

  /** How long the door may take to accept a connection after the service's {@code /health}. */
  static final Duration DOOR_READY = Duration.ofSeconds(30);

  private final long pid;
  private final JobKind kind;
  private final Duration duration;
  private final double retryingPerSecond;
  private final GrpcTransport grpc;
  private final RetryingGrpcClient retrying;
  private final ScheduledExecutorService timer;
  private final boolean watched;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicInteger sent = new AtomicInteger();
  private volatile ThreadCount threads;

  /**
   * @param pid the service's process
   * @param port its gRPC door's port on 127.0.0.1
   * @param rate the run's offered jobs per second
   * @param duration how long the run sends
   * @param watched whether the run reads the thread count and sends the retrying client's calls
   *     (the sweep's runs; the step test's only send their jobs through the door)
   */
  GrpcDoorRun(long pid, int port, JobKind kind, double rate, Duration duration, boolean watched) {
    this.pid = pid;
    this.watched = watched;
    this.kind = kind;
    this.duration = duration;
    this.retryingPerSecond = Math.max(1, RETRYING_SHARE * rate);
    // the HTTP transport's timeout: far past the service's queue timeout, so the service answers
    this.grpc = new GrpcTransport("127.0.0.1", port, Duration.ofMinutes(5));
    this.retrying = new RetryingGrpcClient("127.0.0.1", port, RETRYING_DEADLINE);
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "loadtest-grpc-retrying-timer");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * The service's threads while it answers {@link #UNLOADED_CALLS} calls one at a time through the
   * door (both clients' connections, their event loops and a job's thread then exist, as in the
   * run).
   */
  ThreadCount.Range unloaded(Transport http) throws Exception {
    Transport door = grpc.routing(http);
    grpc.awaitReady(DOOR_READY);
    // its connection too: the service's side of each connection is one of the threads counted
    retrying.awaitReady(DOOR_READY);
    try (ThreadCount count = ThreadCount.watch(pid, THREAD_PERIOD_MILLIS)) {
      for (int i = 0; i < UNLOADED_CALLS; i++) {
        door.send(new Arrival(0, "unloaded", "POST", kind.path(i), Map.of()))
            .get(60, TimeUnit.SECONDS);
      }
      Thread.sleep(2 * THREAD_PERIOD_MILLIS); // a last reading after the last call; real time
      return count.stop();
    }
  }

  /** Waits until the door accepts a connection (see {@link GrpcTransport#awaitReady}). */
  void awaitReady() throws Exception {
    grpc.awaitReady(DOOR_READY);
  }

  /**
   * The run's transport: transcode jobs through the door, the rest through the HTTP transport
   * {@code inner}, all of it logged by {@code answers}; its first arrival starts the thread
   * readings and the retrying client.
   */
  UnaryOperator<Transport> transport(UnaryOperator<Transport> answers) {
    return inner -> {
      Transport logged = answers.apply(grpc.routing(inner));
      return arrival -> {
        if (watched && started.compareAndSet(false, true)) {
          begin();
        }
        return logged.send(arrival);
      };
    };
  }

  // the timer is stopped by shutting it down, and each call's attempts are recorded by its tracer:
  // neither future is needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void begin() {
    threads = ThreadCount.watch(pid, THREAD_PERIOD_MILLIS);
    long period = Math.max(1, Math.round(1e9 / retryingPerSecond));
    long calls = Math.max(1, (long) (duration.toNanos() / (double) period));
    timer.scheduleAtFixedRate(
        () -> {
          int n = sent.getAndIncrement();
          if (n >= calls) {
            timer.shutdown();
            return;
          }
          JobKind.Size size = kind.sizes().get(n % kind.sizes().size());
          retrying.call(
              size.path(),
              Map.of(
                  "X-Account-Id",
                  "retrying-client",
                  JobKind.SIZE_HEADER,
                  size.id(),
                  JobKind.COST_HEADER,
                  Integer.toString(kind.cost(size))));
        },
        0,
        period,
        TimeUnit.NANOSECONDS);
  }

  /**
   * After the run: waits up to {@code drain} for the retrying client's calls, stops the readings and
   * gives the figures.
   *
   * @param samples the run's server samples (in-flight and queued per limiter)
   * @param limiterName the limiter guarding the door
   */
  DoorFigures finish(
      ThreadCount.Range unloaded, List<ServerSample> samples, String limiterName, Duration drain)
      throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(5, TimeUnit.SECONDS);
    long until = System.nanoTime() + drain.toNanos();
    while (retrying.open() > 0 && System.nanoTime() - until < 0) {
      Thread.sleep(50); // waiting for real answers on the real clock
    }
    ThreadCount count = threads;
    ThreadCount.Range loaded = count == null ? ThreadCount.Range.NONE : count.stop();
    int inFlight = -1;
    int queued = -1;
    for (ServerSample s : samples) {
      ServerSample.LimiterLoad load = s.limiters().get(limiterName);
      if (load != null) {
        inFlight = Math.max(inFlight, load.inFlight());
        queued = Math.max(queued, load.queued());
      }
    }
    PushbackCheck check = retrying.check();
    return new DoorFigures(unloaded, loaded, inFlight, queued, retryingPerSecond, check);
  }

  @Override
  public void close() {
    timer.shutdownNow();
    ThreadCount count = threads;
    if (count != null) {
      count.close();
    }
    retrying.close();
    grpc.close();
  }
}
