package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.SimulatedServer.Job;
import dev.sluice.concurrency.SimulatedServer.Jobs;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reject-early from a node's first request, on the simulated server ({@link SimulatedServer}): a
 * new node (a deploy, one an autoscaler adds) in overload answers its refusals at arrival from its
 * first jobs on, not after it has timed dozens; and what it learns from a few jobs of a wide mix
 * does not cost work the permits could have done.
 */
class ColdStartSimulationTest {

  /** Jobs of 400 ms of CPU, within ±10%. */
  private static final Jobs JOBS_400_MS =
      random -> new Job(SimulatedServer.Mix.vary(SimulatedServer.ms(400), random), 0);

  private static LimiterSpec.Builder spec(int maxConcurrency, int timeoutSeconds) {
    return LimiterSpec.custom()
        .maxConcurrency(maxConcurrency)
        .maxQueue(40)
        .queueTimeout(Duration.ofSeconds(timeoutSeconds))
        .rejectEarly(true);
  }

  private static LimitSpec cpu(SimulatedServer server) {
    return LimitSpec.of(
        "cpu",
        (max, start) -> CpuLimit.builder()
            .targetCpu(0.7)
            .sampler(server.processSampler())
            .initialLimit(1)
            .maxLimit(max)
            .build());
  }

  /**
   * 400 ms jobs at 5x what the server can do, the first minute of a fresh limiter: at least 95 %
   * of the refusals come at arrival (the rest after queueing: a re-check's predicted wait or a
   * 504), at most 5 % are 504s, and the first predicted-wait refusal comes before the 8th job has
   * finished. {@code limit}: {@code fixed} 4 permits on 4 cores, or {@code cpu} (target 70 %, from
   * 1 up to 4) on 2, the demo's; {@code fair}: the demo's queue, fair over 40 hosts, 1 waiting
   * per host.
   */
  @ParameterizedTest(name = "{0} on {1} cores, {2} s timeout, fair {3}, seed {4}")
  @CsvSource({
    "fixed, 4, 2, false, 1, 12",
    "fixed, 4, 2, false, 2, 12",
    "cpu, 2, 2, false, 3, 12",
    "cpu, 2, 2, true, 4, 12",
    "cpu, 2, 10, true, 5, 40"
  })
  void aFreshLimiterInOverloadRefusesAtArrivalFromItsFirstJobs(
      String limit, int cores, int timeoutSeconds, boolean fair, long seed, int firstBy) {
    SimulatedServer server = new SimulatedServer(cores, seed);
    LimiterSpec.Builder spec = spec(4, timeoutSeconds);
    if (limit.equals("cpu")) {
      spec.limit(cpu(server));
    }
    if (fair) {
      spec.queue(QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(1).build()));
      AtomicInteger hosts = new AtomicInteger();
      server.caller = job -> Caller.of("host-" + hosts.getAndIncrement() % 40);
    }
    server.limiter = server.builder().spec(spec.build()).build();
    double rate = 5 * cores / 0.4;

    long completedAtFirstPrediction = -1;
    for (int tenth = 0; tenth < 600; tenth++) {
      server.run(Duration.ofMillis(100), JOBS_400_MS, rate);
      if (completedAtFirstPrediction < 0 && server.rejected(RejectionReason.PREDICTED_WAIT) > 0) {
        completedAtFirstPrediction = server.completed;
      }
    }

    ConcurrencySnapshot s = server.limiter.snapshot();
    long refused = s.rejectedQueueFull() + s.rejectedQueueTimeout();
    long atArrival = s.rejectedQueueFull() - s.rejectedLate();
    String why = s + ", completed at the first predicted wait: " + completedAtFirstPrediction;
    System.out.printf(
        "cold start %s/%d cores/%d s/fair %s: refusals %d, at arrival %.3f, 504 %.3f, first"
            + " predicted wait after %d jobs%n",
        limit,
        cores,
        timeoutSeconds,
        fair,
        refused,
        (double) atArrival / refused,
        (double) s.rejectedQueueTimeout() / refused,
        completedAtFirstPrediction);
    assertThat(completedAtFirstPrediction).as(why).isBetween(0L, (long) firstBy);
    assertThat((double) atArrival / refused).as(why).isGreaterThanOrEqualTo(0.95);
    assertThat((double) s.rejectedQueueTimeout() / refused).as(why).isLessThanOrEqualTo(0.05);
  }

  /**
   * A wide mix from a cold start: a few jobs of it say little about the next, so the prediction
   * must not refuse on them callers the permits would have served. Judged by the work done (CPU
   * seconds of completed jobs) against the same arrivals with reject-early off, over the first
   * minutes: {@code sizes} (50 and 800 ms, a CPU limit on 2 cores, 10 s timeout) and {@code
   * clips} (2 to 60 s of one core each, as transcodes of clips: 2 permits on 2 cores, 60 s
   * timeout).
   */
  @ParameterizedTest(name = "{0} at {1}x, seed {2}")
  @CsvSource({"sizes, 2, 11", "sizes, 5, 12", "clips, 1.5, 13", "clips, 3, 14", "clips, 3, 15"})
  void aFewJobsOfAWideMixCostNoWork(String mix, double overload, long seed) {
    double with = workDone(mix, overload, seed, true);
    double without = workDone(mix, overload, seed, false);

    assertThat(with)
        .as("CPU seconds done, reject-early %.1f, off %.1f", with, without)
        .isGreaterThanOrEqualTo(0.97 * without);
  }

  private static double workDone(String mix, double overload, long seed, boolean rejectEarly) {
    boolean clips = mix.equals("clips");
    SimulatedServer server =
        new SimulatedServer(2, seed, clips ? SimulatedServer.ms(50) : SimulatedServer.STEP);
    LimiterSpec.Builder spec = spec(clips ? 2 : 16, clips ? 60 : 10).rejectEarly(rejectEarly);
    if (!clips) {
      spec.limit(cpu(server));
    }
    server.limiter = server.builder().spec(spec.build()).build();
    Jobs jobs = clips
        ? random -> new Job(SimulatedServer.ms(2000 + random.nextInt(58_000)), 0)
        : SimulatedServer.Mix.SIZES;
    double meanCpuSeconds = clips ? 31 : SimulatedServer.Mix.SIZES.meanCpuSeconds();
    server.run(Duration.ofMinutes(clips ? 20 : 2), jobs, overload * server.cores / meanCpuSeconds);
    return server.completedCpuSeconds;
  }
}
