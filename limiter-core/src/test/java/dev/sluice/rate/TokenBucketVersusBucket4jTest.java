package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Differential test: Sluice's token bucket decides every request exactly as Bucket4j's does. */
@Tag("property")
class TokenBucketVersusBucket4jTest {

  @Test
  void decidesEveryRequestOfRandomTracesLikeBucket4jGreedyRefill() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    int requests = 0;
    for (int trace = 0; trace < 300; trace++) {
      long limit = 1L + random.nextInt(random.nextBoolean() ? 10 : 1000);
      long periodNanos = randomPeriod(random);
      long capacity = 1L + random.nextInt((int) Math.min(3 * limit, 2000));
      VirtualTime time = new VirtualTime();
      long start = time.nanoTime();
      RateLimiter sluice = RateLimiter.of(
          Algorithm.TOKEN_BUCKET,
          new RateLimit(limit, Duration.ofNanos(periodNanos), capacity),
          time);
      // Bucket4j compares raw times, so it gets time since the start; Sluice gets the raw virtual
      // clock, which may wrap past Long.MAX_VALUE during the trace
      TimeMeter meter = new VirtualTimeMeter(time, start);
      Bucket bucket = Bucket.builder()
          .addLimit(l -> l.capacity(capacity).refillGreedy(limit, Duration.ofNanos(periodNanos)))
          .withCustomTimePrecision(meter)
          .build();
      RandomTrace generated = RandomTrace.generate(
          random, 400, Math.max(1, periodNanos / limit), Math.min(capacity + 2, 20));
      for (RandomTrace.Request request : generated.requests()) {
        time.advanceNanos(request.gapNanos());
        RateDecision ours = sluice.tryAcquire("key", request.cost());
        ConsumptionProbe theirs = bucket.tryConsumeAndReturnRemaining(request.cost());
        String where = "seed " + seed + ", trace " + trace + " (" + limit + " per " + periodNanos
            + "ns, capacity " + capacity + "), request " + requests + " cost " + request.cost();
        assertThat(ours.allowed()).as(where).isEqualTo(theirs.isConsumed());
        assertThat(ours.remaining())
            .as(where)
            .isEqualTo(theirs.isConsumed() ? theirs.getRemainingTokens() : 0);
        if (!theirs.isConsumed() && request.cost() <= capacity) {
          // Bucket4j may round the wait down by a nanosecond; ours is the first instant that passes
          assertThat(ours.retryAfterNanos())
              .as(where)
              .isBetween(theirs.getNanosToWaitForRefill(), theirs.getNanosToWaitForRefill() + 1);
        }
        requests++;
      }
    }
    assertThat(requests).isEqualTo(300 * 400);
  }

  private static long randomPeriod(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> Duration.ofSeconds(1).toNanos();
      case 1 -> Duration.ofMinutes(1 + random.nextInt(60)).toNanos();
      case 2 -> 1_000L + random.nextInt(1_000_000);
      default -> 1 + (long) (random.nextDouble() * Duration.ofHours(1).toNanos());
    };
  }

  /** Bucket4j's clock, reading the same virtual time. */
  private record VirtualTimeMeter(VirtualTime time, long start) implements TimeMeter {
    @Override
    public long currentTimeNanos() {
      return time.nanoTime() - start;
    }

    @Override
    public boolean isWallClockBased() {
      return false;
    }
  }
}
