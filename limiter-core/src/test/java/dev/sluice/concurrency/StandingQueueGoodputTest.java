package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Standing-queue control near and above capacity, in virtual time: Poisson arrivals of 200 ms jobs,
 * a 100 ms target, a 2 s queue timeout, 120 s. Shedding must not cost work the permits could have
 * done (a standing queue keeps two rounds of work, served in order), and above capacity admitted
 * callers must wait a job or two, where FIFO makes them wait the queue timeout.
 */
@Tag("property")
class StandingQueueGoodputTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long SERVICE = 200 * MS;
  private static final Duration TARGET = Duration.ofMillis(100);
  private static final long RUN = TimeUnit.SECONDS.toNanos(120);

  @ParameterizedTest(name = "{0} permit(s)")
  @ValueSource(ints = {1, 2, 8})
  void atTwiceTheCapacityTheControlDoesTheWorkFifoDoesWithoutItsWait(int permits) {
    Compared runs = Compared.at(permits, 2.0);
    Run fifo = runs.fifo();
    Run controlled = runs.controlled();

    assertThat(fifo.utilisation()).as(runs.why()).isGreaterThan(0.98);
    assertThat(controlled.utilisation()).as(runs.why()).isGreaterThanOrEqualTo(0.96);
    assertThat(controlled.waitP99()).as(runs.why()).isLessThan(fifo.waitP99() / 2);
  }

  @ParameterizedTest(name = "{0} permit(s)")
  @ValueSource(ints = {1, 2, 8})
  void atFiveTimesTheCapacityAdmittedCallersWaitAboutAJob(int permits) {
    Compared runs = Compared.at(permits, 5.0);
    Run fifo = runs.fifo();
    Run controlled = runs.controlled();

    assertThat(controlled.utilisation()).as(runs.why()).isGreaterThan(0.99);
    // the newest go first past the kept rounds; those are served in order: about two jobs at most
    assertThat(controlled.waitP99()).as(runs.why()).isLessThanOrEqualTo(2 * SERVICE);
    assertThat(fifo.waitP99()).as(runs.why()).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1_500));
  }

  @ParameterizedTest(name = "{0} permit(s)")
  @ValueSource(ints = {1, 2, 8})
  void belowCapacityLittleIsShed(int permits) {
    Compared runs = Compared.at(permits, 0.8);
    Run fifo = runs.fifo();
    Run controlled = runs.controlled();

    // with one permit at 80 % a queue of a few jobs stands a whole job's time now and then: the
    // control trades some work for latency there, by design; the more permits, the less
    double kept = permits == 1 ? 0.8 : permits == 2 ? 0.9 : 0.95;
    assertThat(controlled.utilisation())
        .as(runs.why())
        .isGreaterThanOrEqualTo(kept * fifo.utilisation());
    // and nobody kept is passed over for long: an admitted caller waits a few jobs at most
    assertThat(controlled.waitP99()).as(runs.why()).isLessThanOrEqualTo(3 * SERVICE);
  }

  /** FIFO and the control on the same arrivals (one seed). */
  private record Compared(Run fifo, Run controlled, String why) {
    static Compared at(int permits, double load) {
      long seed = Seeds.seed();
      Run fifo = new Run(seed, permits, load, Duration.ZERO);
      Run controlled = new Run(seed, permits, load, TARGET);
      return new Compared(
          fifo, controlled, "seed " + seed + ": fifo " + fifo + ", controlled " + controlled);
    }
  }

  /** One simulated run: open-loop Poisson arrivals at {@code load} times what the permits serve. */
  private static final class Run {
    private final int permits;
    private long busyNanos;
    private final long[] waits = new long[1_000_000];
    private int admitted;
    private long shed;

    // pending acquires hold permits or queue; their callbacks record what the test asserts
    @SuppressWarnings("FutureReturnValueIgnored")
    Run(long seed, int permits, double load, Duration target) {
      this.permits = permits;
      VirtualTime time = new VirtualTime();
      ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("goodput")
          .clock(time)
          .scheduler(time)
          .executor(Runnable::run)
          .spec(LimiterSpec.custom()
              .maxConcurrency(permits)
              .maxQueue(10_000)
              .queueTimeout(Duration.ofSeconds(2))
              .queueDelayTarget(target)
              .build())
          .build();
      SplittableRandom random = new SplittableRandom(seed);
      double perNano = load * permits / SERVICE;
      long start = time.nanoTime();
      while (time.nanoTime() - start < RUN) {
        time.advance(Duration.ofNanos((long) (-Math.log(1 - random.nextDouble()) / perNano)));
        long arrived = time.nanoTime();
        limiter.acquire().whenComplete((permit, error) -> {
          if (error != null) {
            shed++;
            return;
          }
          waits[admitted++] = time.nanoTime() - arrived;
          // only work done within the run counts: a job granted near its end counts in part
          busyNanos += Math.min(SERVICE, start + RUN - time.nanoTime());
          time.schedule(permit::release, SERVICE);
        });
      }
    }

    double utilisation() {
      return busyNanos / ((double) RUN * permits);
    }

    long waitP99() {
      long[] sorted = Arrays.copyOf(waits, admitted);
      Arrays.sort(sorted);
      return sorted[(int) Math.ceil(admitted * 0.99) - 1];
    }

    @Override
    public String toString() {
      return String.format(
          "[utilisation %.3f, wait p99 %d ms, admitted %d, refused %d]",
          utilisation(), waitP99() / MS, admitted, shed);
    }
  }
}
