package dev.sluice.loadtest.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The RLS load: Envoy's {@code ShouldRateLimit} calls over one HTTP/2 connection per replica, as an
 * Envoy worker makes them (grpc-java's async stub), open loop at a fixed rate or closed loop at a
 * fixed number in flight.
 */
final class RlsLoad {

  /** The domain of the scenario's descriptor file. */
  static final String DOMAIN = "loadtest";

  private static final long CALL_DEADLINE_SECONDS = 10;

  private RlsLoad() {}

  /** The {@code i}th call of the latency and throughput runs: the users in turn. */
  static RateLimitRequest userOf(int i) {
    return request("user", "u" + Math.floorMod(i, EnvoyRateLimitRun.USERS));
  }

  static RateLimitRequest request(String key, String value) {
    return RateLimitRequest.newBuilder()
        .setDomain(DOMAIN)
        .addDescriptors(RateLimitDescriptor.newBuilder()
            .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value)))
        .build();
  }

  /**
   * What an open-loop run found: latency in microseconds from each call's intended send time to its
   * answer (coordinated omission: a late send or a slow answer both count), and the calls by outcome.
   */
  record OpenLoop(
      double rate,
      Duration measured,
      Histogram latencyMicros,
      long sent,
      long ok,
      long overLimit,
      long errors,
      long unanswered,
      long maxSendLagMicros,
      List<Histogram> bySecond) {}

  /**
   * Sends {@code rate} calls a second for {@code duration}, each at its intended time whatever the
   * answers do, then waits up to 10 s for the last answers; a call still unanswered then is
   * recorded with the time it had waited.
   */
  static OpenLoop openLoop(
      ManagedChannel channel, double rate, Duration duration, IntFunction<RateLimitRequest> call)
      throws InterruptedException {
    RateLimitServiceGrpc.RateLimitServiceStub stub = RateLimitServiceGrpc.newStub(channel);
    ConcurrentHistogram latency = new ConcurrentHistogram(3);
    AtomicLong ok = new AtomicLong();
    AtomicLong over = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicInteger open = new AtomicInteger();
    long interval = Math.max(1, Math.round(1e9 / rate));
    long calls = Math.max(1, duration.toNanos() / interval);
    long start = System.nanoTime() + Duration.ofMillis(20).toNanos();
    // by the second of the intended send time: shows whether a tail is spread or one episode
    List<ConcurrentHistogram> bySecond = new ArrayList<>();
    for (long s = 0; s <= (calls - 1) * interval / 1_000_000_000L; s++) {
      bySecond.add(new ConcurrentHistogram(3));
    }
    long maxLag = 0;
    for (long i = 0; i < calls; i++) {
      long intended = start + i * interval;
      long wait = intended - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      maxLag = Math.max(maxLag, System.nanoTime() - intended);
      open.incrementAndGet();
      ConcurrentHistogram second = bySecond.get((int) ((intended - start) / 1_000_000_000L));
      send(stub, call.apply((int) i), new Answer() {
        @Override
        void answered(RateLimitResponse response, Throwable error) {
          long micros = Math.max(0, (System.nanoTime() - intended) / 1_000);
          latency.recordValue(micros);
          second.recordValue(micros);
          if (error != null) {
            errors.incrementAndGet();
          } else if (response.getOverallCode() == RateLimitResponse.Code.OK) {
            ok.incrementAndGet();
          } else {
            over.incrementAndGet();
          }
          open.decrementAndGet();
        }
      });
    }
    long lastIntended = start + (calls - 1) * interval;
    long drainUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (open.get() > 0 && System.nanoTime() - drainUntil < 0) {
      Thread.sleep(5); // answers arrive on gRPC's threads; this only waits for the count to reach 0
    }
    long unanswered = open.get();
    for (long i = 0; i < unanswered; i++) {
      latency.recordValue((System.nanoTime() - lastIntended) / 1_000);
    }
    List<Histogram> seconds = new ArrayList<>();
    bySecond.forEach(h -> seconds.add(h.copy()));
    return new OpenLoop(
        rate,
        duration,
        latency.copy(),
        calls,
        ok.get(),
        over.get(),
        errors.get(),
        unanswered,
        maxLag / 1_000,
        seconds);
  }

  /** The steps of {@link #warmUp}'s ramp, each at a further fifth of the rate. */
  static final int RAMP_STEPS = 5;

  /**
   * Warms a service up for {@code duration} before an open loop at {@code rate}: the first half
   * climbs to the rate in {@link #RAMP_STEPS} steps (a fifth of it, two fifths, ...), each waiting
   * for its last answers before the next; the second half runs at the rate. A JVM called at the
   * full rate from cold answers slower than the calls come while its decision path is compiled,
   * and the calls that pile up meanwhile fill its heap, whose collections then slow it further;
   * climbing lets it compile at rates it can answer.
   */
  static void warmUp(
      ManagedChannel channel, double rate, Duration duration, IntFunction<RateLimitRequest> call)
      throws InterruptedException {
    Duration step = duration.dividedBy(2L * RAMP_STEPS);
    for (int s = 1; s <= RAMP_STEPS; s++) {
      openLoop(channel, rate * s / RAMP_STEPS, step, call);
    }
    openLoop(channel, rate, duration.dividedBy(2), call);
  }

  /** What a closed-loop run found: answers completed within the measured time, per second. */
  record ClosedLoop(int inFlight, double perSecond, long answers, long errors) {}

  /**
   * Keeps {@code inFlight} calls open, each sent again as soon as it is answered, for {@code
   * warmup} then {@code measured}; counts the answers of the measured time.
   */
  static ClosedLoop closedLoop(
      ManagedChannel channel,
      int inFlight,
      Duration warmup,
      Duration measured,
      IntFunction<RateLimitRequest> call)
      throws InterruptedException {
    RateLimitServiceGrpc.RateLimitServiceStub stub = RateLimitServiceGrpc.newStub(channel);
    Window window = new Window(warmup, measured);
    AtomicInteger next = new AtomicInteger();
    AtomicInteger open = new AtomicInteger(inFlight);
    for (int c = 0; c < inFlight; c++) {
      new Runnable() {
        @Override
        public void run() {
          send(stub, call.apply(next.getAndIncrement()), new Answer() {
            @Override
            void answered(RateLimitResponse response, Throwable error) {
              if (window.answered(System.nanoTime(), error != null, open)) {
                run();
              }
            }
          });
        }
      }.run();
    }
    window.await(open);
    return window.result(inFlight, measured);
  }

  /** One decision of the exact-limit part, on the wall clock (nanoseconds since the epoch). */
  record Decision(long sentEpochNanos, long answeredEpochNanos, boolean ok, long remaining) {}

  /**
   * {@code clientsPerReplica} callers on each replica, each calling again as soon as it is
   * answered, all on one descriptor, for {@code duration}: every answer with the wall-clock times
   * it was sent and answered.
   */
  static List<Decision> hammer(
      List<ManagedChannel> replicas,
      int clientsPerReplica,
      Duration duration,
      RateLimitRequest call,
      LongConsumer errorAt)
      throws InterruptedException {
    ConcurrentLinkedQueue<Decision> decisions = new ConcurrentLinkedQueue<>();
    Window window = new Window(Duration.ZERO, duration);
    AtomicInteger open = new AtomicInteger(replicas.size() * clientsPerReplica);
    for (ManagedChannel channel : replicas) {
      RateLimitServiceGrpc.RateLimitServiceStub stub = RateLimitServiceGrpc.newStub(channel);
      for (int c = 0; c < clientsPerReplica; c++) {
        new Runnable() {
          @Override
          public void run() {
            long sent = epochNanos();
            send(stub, call, new Answer() {
              @Override
              void answered(RateLimitResponse response, Throwable error) {
                long answered = epochNanos();
                if (error != null) {
                  errorAt.accept(answered);
                } else {
                  decisions.add(new Decision(
                      sent,
                      answered,
                      response.getOverallCode() == RateLimitResponse.Code.OK,
                      response.getStatusesCount() == 0
                          ? -1
                          : response.getStatuses(0).getLimitRemaining()));
                }
                if (window.sending(System.nanoTime())) {
                  run();
                } else {
                  open.decrementAndGet();
                }
              }
            });
          }
        }.run();
      }
    }
    window.await(open);
    return new ArrayList<>(decisions);
  }

  static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  private static void send(
      RateLimitServiceGrpc.RateLimitServiceStub stub, RateLimitRequest request, Answer answer) {
    stub.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)
        .shouldRateLimit(request, answer);
  }

  /** One call's answer or error, once. */
  private abstract static class Answer implements StreamObserver<RateLimitResponse> {
    private RateLimitResponse response;

    abstract void answered(RateLimitResponse response, Throwable error);

    @Override
    public void onNext(RateLimitResponse value) {
      response = value;
    }

    @Override
    public void onError(Throwable t) {
      answered(null, t);
    }

    @Override
    public void onCompleted() {
      answered(response, null);
    }
  }

  /** A warm-up, then the measured time; calls are sent until its end. */
  static final class Window {
    private final long measureFrom;
    private final long end;
    private final AtomicLong counted = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    Window(Duration warmup, Duration measured) {
      long now = System.nanoTime();
      this.measureFrom = now + warmup.toNanos();
      this.end = measureFrom + measured.toNanos();
    }

    boolean sending(long now) {
      return now - end < 0;
    }

    boolean inside(long now) {
      return now - measureFrom >= 0 && now - end < 0;
    }

    void count(long now) {
      if (inside(now)) {
        counted.incrementAndGet();
      }
    }

    /**
     * One answer at {@code now} in a closed loop: counted (with its error) when it falls in the
     * measured time; true while the caller should send again, else the caller is done.
     */
    boolean answered(long now, boolean failed, AtomicInteger open) {
      count(now);
      if (failed && inside(now)) {
        errors.incrementAndGet();
      }
      if (sending(now)) {
        return true;
      }
      open.decrementAndGet();
      return false;
    }

    /** The closed loop's figures: the answers of the measured time, per second. */
    ClosedLoop result(int inFlight, Duration measured) {
      return new ClosedLoop(
          inFlight, counted() / Math.max(1e-9, measured.toNanos() / 1e9), counted(), errors.get());
    }

    long counted() {
      return counted.get();
    }

    /** Waits until every caller has stopped (at most 15 s after the end). */
    void await(AtomicInteger open) throws InterruptedException {
      long until = end + Duration.ofSeconds(15).toNanos();
      while (open.get() > 0 && System.nanoTime() - until < 0) {
        Thread.sleep(5); // the callers run on gRPC's threads; this only waits for them to stop
      }
    }
  }
}
