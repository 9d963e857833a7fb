package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Property: over random traces in virtual time, no window admits more than the algorithm's bound.
 * Every pair of admitted requests (i, j) is checked, i.e. every window that starts and ends on an
 * admission, which are the windows where the count peaks.
 */
@Tag("property")
class WindowBoundPropertyTest {

  /** Permits admitted at a time, as an offset from the trace's start. */
  private record Admission(long offsetNanos, long cost) {}

  @ParameterizedTest
  @EnumSource(names = {"TOKEN_BUCKET", "GCRA", "LEAKY_BUCKET", "LEAKY_BUCKET_SHAPER"})
  void bucketsNeverAdmitMoreThanBurstPlusRefillInAnyWindow(Algorithm algorithm) {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    for (int trace = 0; trace < 40; trace++) {
      RateLimit limit = randomLimit(random);
      List<Admission> admitted = run(algorithm, limit, random);
      long periodNanos = limit.period().toNanos();
      long[] prefix = prefixSums(admitted);
      for (int i = 0; i < admitted.size(); i++) {
        for (int j = i; j < admitted.size(); j++) {
          long window = admitted.get(j).offsetNanos() - admitted.get(i).offsetNanos();
          long permits = prefix[j + 1] - prefix[i];
          // permits <= burst + window x limit / period, kept in integers (fast path in longs)
          if (permits > limit.burst() && exceeds(permits, window, limit, periodNanos)) {
            fail("seed %d trace %d %s: %d permits in %d ns", seed, trace, limit, permits, window);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(names = {"SLIDING_LOG"})
  void slidingLogNeverAdmitsMoreThanTheLimitInAnyPeriod(Algorithm algorithm) {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    int saturatedWindows = 0;
    for (int trace = 0; trace < 40; trace++) {
      RateLimit limit = randomLimit(random);
      List<Admission> admitted = run(algorithm, limit, random);
      long periodNanos = limit.period().toNanos();
      long[] prefix = prefixSums(admitted);
      for (int i = 0; i < admitted.size(); i++) {
        for (int j = i;
            j < admitted.size()
                && admitted.get(j).offsetNanos() - admitted.get(i).offsetNanos() < periodNanos;
            j++) {
          long permits = prefix[j + 1] - prefix[i];
          if (permits > limit.limit()) {
            fail(
                "seed %d trace %d %s: %d permits from admission %d",
                seed, trace, limit, permits, i);
          }
          if (permits == limit.limit()) {
            saturatedWindows++;
          }
        }
      }
    }
    // the traces must push the log to its limit, or the property says nothing
    assertThat(saturatedWindows).isPositive();
  }

  private static boolean exceeds(long permits, long window, RateLimit limit, long periodNanos) {
    BigInteger lhs =
        BigInteger.valueOf(permits - limit.burst()).multiply(BigInteger.valueOf(periodNanos));
    return lhs.compareTo(BigInteger.valueOf(window).multiply(BigInteger.valueOf(limit.limit())))
        > 0;
  }

  private static RateLimit randomLimit(Random random) {
    long limit = 1L + random.nextInt(30);
    long periodNanos =
        1_000 + (long) (random.nextDouble() * Duration.ofMinutes(10).toNanos());
    long burst = 1L + random.nextInt((int) (2 * limit));
    return new RateLimit(limit, Duration.ofNanos(periodNanos), burst);
  }

  private static List<Admission> run(Algorithm algorithm, RateLimit limit, Random random) {
    VirtualTime time = new VirtualTime();
    long start = time.nanoTime();
    RateLimiter limiter = RateLimiter.of(algorithm, limit, time);
    RandomTrace trace =
        RandomTrace.generate(random, 600, Math.max(1, limit.period().toNanos() / limit.limit()), 3);
    List<Admission> admitted = new ArrayList<>();
    for (RandomTrace.Request request : trace.requests()) {
      time.advanceNanos(request.gapNanos());
      if (limiter.tryAcquire("k", request.cost()).allowed()) {
        admitted.add(new Admission(time.nanoTime() - start, request.cost()));
      }
    }
    assertThat(admitted).as("a trace that admits nothing proves nothing").isNotEmpty();
    return admitted;
  }

  private static long[] prefixSums(List<Admission> admitted) {
    long[] prefix = new long[admitted.size() + 1];
    for (int i = 0; i < admitted.size(); i++) {
      prefix[i + 1] = prefix[i] + admitted.get(i).cost();
    }
    return prefix;
  }
}
