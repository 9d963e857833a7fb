package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The demo's load test in virtual time: one permit, a queue of 40, 10 s timeout, 32 hosts at
 * most one waiter each, a few critical and sheddable callers, 50 ms jobs arriving open-loop at
 * twice what one permit serves, some callers cancelling or with deadlines of their own, rejected
 * callers retrying after Retry-After as the load test's client does. Whatever the discipline (FIFO,
 * fair, and classes over either; with or without standing-queue control), the limiter must stay
 * work-conserving: after every event (ours and the limiter's own timeouts and re-checks), a waiter
 * is queued only while every permit is held, and no more are held; it serves about what one permit
 * can; nothing is left behind.
 */
@Tag("property")
class QueueWorkConservationTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long SERVICE = 50 * MS;
  private static final int HOSTS = 32;
  private static final Duration RUN = Duration.ofSeconds(60);

  private static final FairQueueConfig ONE_PER_KEY =
      FairQueueConfig.builder().maxQueuePerKey(1).build();

  /**
   * {@code deferred}: grants and rejections are completed by a task run later, as on the plugin's
   * executor, so a caller can cancel between its grant and its completion.
   */
  @ParameterizedTest(
      name = "{0}, rejectEarly={1}, deferred completions={2}, queue-delay target {3} ms")
  @CsvSource({
    "fifo, false, false, 0", "fifo, true, true, 0",
    "fair, false, true, 0", "fair, true, false, 0",
    "prioritized-fifo, false, false, 0", "prioritized-fifo, true, true, 0",
    "prioritized-fifo, false, true, 0", "prioritized-fifo, true, false, 0",
    "prioritized-fair, false, false, 0", "prioritized-fair, true, true, 0",
    "prioritized-fair, false, true, 0", "prioritized-fair, true, false, 0",
    "fifo, false, true, 20", "fifo, true, false, 20",
    "fair, true, true, 20", "prioritized-fifo, false, false, 20",
    "prioritized-fair, true, true, 20", "prioritized-fair, false, true, 20"
  })
  void aPermitIsFreeOnlyWhileNobodyWaits(
      String discipline, boolean rejectEarly, boolean deferred, int targetMillis) {
    long seed = Seeds.seed();
    Run run =
        new Run(seed, queue(discipline), rejectEarly, deferred, Duration.ofMillis(targetMillis));
    run.go();

    String why = discipline + ", rejectEarly=" + rejectEarly + ", deferred=" + deferred
        + ", target " + targetMillis + " ms, seed " + seed + ": " + run;
    assertThat(run.violation).as(why).isNull();
    long capacity = RUN.toNanos() / SERVICE;
    assertThat(run.servedInRun).as(why).isGreaterThanOrEqualTo((long) (0.95 * capacity));
    // once the arrivals and their retries are over, nothing is left behind
    assertThat(run.limiter.snapshot().inFlight()).as(why).isZero();
    assertThat(run.limiter.snapshot().queued()).as(why).isZero();
  }

  private static Supplier<WaitQueue> queue(String discipline) {
    return switch (discipline) {
      case "fifo" -> WaitQueue::fifo;
      case "fair" -> () -> WaitQueue.fair(ONE_PER_KEY);
      case "prioritized-fifo" -> WaitQueue::prioritized;
      case "prioritized-fair" -> () -> WaitQueue.prioritized(ONE_PER_KEY);
      default -> throw new IllegalArgumentException(discipline);
    };
  }

  /** One simulated run; every scheduled event (ours and the limiter's) checks the invariant. */
  private static final class Run {
    final VirtualTime time = new VirtualTime();
    final SplittableRandom random;
    final ConcurrencyLimiter limiter;
    long served;
    long servedInRun;
    long cancelled;
    final Map<RejectionReason, Long> rejected = new EnumMap<>(RejectionReason.class);
    String violation;
    long events;

    Run(
        long seed,
        Supplier<WaitQueue> queue,
        boolean rejectEarly,
        boolean deferred,
        Duration queueDelayTarget) {
      this.random = new SplittableRandom(seed);
      Scheduler checking = (task, delay) -> time.schedule(
          () -> {
            task.run();
            check("limiter task");
          },
          delay);
      this.limiter = ConcurrencyLimiter.builder("work")
          .spec(LimiterSpec.custom()
              .maxConcurrency(1)
              .maxQueue(40)
              .queueTimeout(Duration.ofSeconds(10))
              .rejectEarly(rejectEarly)
              .queueDelayTarget(queueDelayTarget)
              .queue(QueueSpec.of("queue", queue))
              .build())
          .clock(time)
          .scheduler(checking)
          .executor(
              deferred
                  ? task -> time.schedule(
                      () -> {
                        task.run();
                        check("completion");
                      },
                      0)
                  : Runnable::run)
          .build();
    }

    void go() {
      long end = time.nanoTime() + RUN.toNanos();
      // twice what one permit serves: 40 arrivals a second, exponential gaps
      double meanGap = SERVICE / 2.0;
      long at = 0;
      while (at < RUN.toNanos()) {
        at += (long) (-Math.log(1 - random.nextDouble()) * meanGap);
        long delay = at;
        time.schedule(
            () -> {
              arrive(caller(), 1);
              check("arrival");
            },
            delay);
      }
      time.advanceNanos(end - time.nanoTime());
      servedInRun = served;
      time.advance(Duration.ofMinutes(2)); // the retries, waits and jobs still under way end
    }

    /** Mostly normal, a tenth critical, a tenth sheddable; a tenth with a deadline of its own. */
    Caller caller() {
      double p = random.nextDouble();
      Priority priority =
          p < 0.1 ? Priority.CRITICAL : p < 0.2 ? Priority.SHEDDABLE : Priority.NORMAL;
      Caller caller = Caller.of("host-" + random.nextInt(HOSTS)).withPriority(priority);
      if (random.nextInt(10) == 0) {
        caller = caller.withTimeout(Duration.ofMillis(100 + random.nextInt(3000)));
      }
      return caller;
    }

    /** Asks for a permit; a rejected caller tries again after Retry-After, 3 tries in all. */
    // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
    @SuppressWarnings("FutureReturnValueIgnored")
    void arrive(Caller caller, int attempt) {
      CompletableFuture<Permit> future = limiter.acquire(caller);
      future.whenComplete((permit, failure) -> {
        if (permit != null) {
          time.schedule(
              () -> {
                served++;
                permit.release();
                check("release");
              },
              SERVICE);
        } else if (failure instanceof ConcurrencyRejectedException e) {
          rejected.merge(e.reason(), 1L, Long::sum);
          if (attempt < 3) {
            time.schedule(
                () -> {
                  arrive(caller, attempt + 1);
                  check("retry");
                },
                Math.max(MS, e.retryAfterNanos()));
          }
        }
      });
      if (!future.isDone() && random.nextInt(20) == 0) {
        // a client that gives up (disconnect, its own deadline)
        time.schedule(
            () -> {
              if (future.cancel(false)) {
                cancelled++;
              }
              check("cancel");
            },
            random.nextLong(10 * MS, 5_000 * MS));
      }
    }

    void check(String event) {
      events++;
      ConcurrencySnapshot s = limiter.snapshot();
      boolean idleWhileQueued = s.queued() > 0 && s.inFlight() < s.limit();
      if (violation == null && (idleWhileQueued || s.inFlight() > s.limit())) {
        violation = "after " + event + " #" + events + ": in flight " + s.inFlight() + " of "
            + s.limit() + " while " + s.queued() + " queued";
      }
    }

    @Override
    public String toString() {
      return "served " + served + ", rejected " + rejected + ", cancelled " + cancelled + ", queue "
          + limiter.queueSnapshot() + ", first violation " + violation;
    }
  }
}
