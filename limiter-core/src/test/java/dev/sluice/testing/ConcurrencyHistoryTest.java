package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.testing.ConcurrencyHistory.Job;
import dev.sluice.testing.ConcurrencyHistory.Report;
import dev.sluice.testing.RateHistory.Allowance;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class ConcurrencyHistoryTest {

  @Test
  void jobsThatTouchDoNotOverlap() {
    List<Job> jobs = List.of(new Job("a", 0, 10), new Job("a", 10, 20), new Job("b", 20, 30));

    Report report = ConcurrencyHistory.check(jobs, 1, List.of());

    assertThat(report.withinLimit()).as(report.summary()).isTrue();
    assertThat(report.mostAtOnce()).isEqualTo(1);
  }

  @Test
  void aThirdJobOverALimitOfTwoIsFoundWhereItStarted() {
    List<Job> jobs = List.of(new Job("a", 0, 100), new Job("b", 10, 100), new Job("a", 50, 60));

    Report report = ConcurrencyHistory.check(jobs, 2, List.of());

    assertThat(report.mostAtOnce()).isEqualTo(3);
    assertThat(report.overruns()).singleElement().satisfies(o -> {
      assertThat(o.atNanos()).isEqualTo(50);
      assertThat(o.running()).isEqualTo(3);
      assertThat(o.allowed()).isEqualTo(2);
    });
    assertThat(report.summary()).contains("at most 3 at once, 1 starts above the limit");
  }

  @Test
  void anAllowanceRaisesTheBoundOnlyWhileItLasts() {
    Allowance share = new Allowance("outage", 40, 70, 1);
    List<Job> during = List.of(new Job("a", 0, 100), new Job("b", 10, 100), new Job("a", 50, 60));
    List<Job> after = List.of(new Job("a", 0, 100), new Job("b", 10, 100), new Job("a", 80, 90));

    assertThat(ConcurrencyHistory.check(during, 2, List.of(share)).withinLimit())
        .isTrue();
    assertThat(ConcurrencyHistory.check(after, 2, List.of(share)).overruns())
        .singleElement()
        .satisfies(o -> assertThat(o.faults()).isEmpty());
  }

  @Test
  void badRecordsAreRefusedWithTheirValues() {
    assertThatThrownBy(() -> new Job("a", 10, 5)).hasMessageContaining("10 > 5");
    assertThatThrownBy(() -> ConcurrencyHistory.check(List.of(), 0, List.of()))
        .hasMessageContaining("was 0");
  }

  /**
   * Sluice's own limiter against the checker: random arrivals and job lengths on a virtual clock,
   * every job recorded from its permit's grant to its release.
   */
  @Test
  @Tag("property")
  void aLocalLimiterNeverRunsMoreThanItsLimit() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    VirtualTime time = new VirtualTime();
    long start = time.nanoTime();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("jobs")
        .spec(LimiterSpec.custom().maxConcurrency(3).maxQueue(1_000).build())
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .build();
    List<Job> jobs = new ArrayList<>();
    List<long[]> running = new ArrayList<>(); // end time, index into permits
    List<Permit> permits = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      time.advanceNanos(random.nextInt(5_000_000));
      long now = time.nanoTime() - start;
      releaseDue(running, permits, jobs, now, now);
      int length = 1_000_000 + random.nextInt(20_000_000);
      // the grant records the job; a refusal (none here: the queue holds them all) fails the count
      var unused = limiter.acquire().thenAccept(permit -> {
        long granted = time.nanoTime() - start;
        permits.add(permit);
        running.add(new long[] {granted + length, permits.size() - 1, granted});
      });
    }
    for (int i = 0; i < 10_000 && !running.isEmpty(); i++) {
      time.advance(Duration.ofMillis(1));
      long now = time.nanoTime() - start;
      releaseDue(running, permits, jobs, now, now);
    }

    Report report = ConcurrencyHistory.check(jobs, 3, List.of());

    assertThat(report.withinLimit()).as("seed %d: %s", seed, report.summary()).isTrue();
    assertThat(report.mostAtOnce()).as("seed %d: the limit was reached", seed).isEqualTo(3);
    assertThat(jobs).hasSize(2_000);
  }

  /** Releases the jobs due by {@code now}, earliest first, recording each as ended at {@code at}. */
  private static void releaseDue(
      List<long[]> running, List<Permit> permits, List<Job> jobs, long now, long at) {
    while (true) {
      Optional<long[]> next =
          running.stream().filter(r -> r[0] <= now).min((a, b) -> Long.compare(a[0], b[0]));
      if (next.isEmpty()) {
        return;
      }
      long[] job = next.get();
      running.remove(job);
      jobs.add(new Job("n", job[2], at));
      permits.get((int) job[1]).release();
    }
  }
}
