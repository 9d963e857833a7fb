package dev.sluice.rules;

import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.time.NanoClock;
import java.util.HashMap;
import java.util.Map;

/**
 * A stand-in token bucket (greedy refill, capacity = burst) used only until the rate algorithms land
 * on this branch; the engine's tests need a counter with a give-back.
 */
final class StandInCounters implements LocalCounter.Factory {

  @Override
  public LocalCounter create(Rule rule, NanoClock clock, long maxKeys) {
    return new Bucket(rule.limit(), clock);
  }

  private static final class Bucket implements LocalCounter {
    private final RateLimit limit;
    private final NanoClock clock;
    private final Map<String, long[]> state = new HashMap<>(); // {tokens x nanosPerPermit, last}

    Bucket(RateLimit limit, NanoClock clock) {
      this.limit = limit;
      this.clock = clock;
    }

    @Override
    public synchronized RateDecision tryAcquire(String key, long cost) {
      long per = limit.nanosPerPermit();
      long now = clock.nanoTime();
      long[] s = state.computeIfAbsent(key, k -> new long[] {limit.burst() * per, now});
      s[0] = Math.min(limit.burst() * per, s[0] + (now - s[1]));
      s[1] = now;
      if (s[0] >= cost * per) {
        s[0] -= cost * per;
        return RateDecision.allowed(limit.limit(), s[0] / per, limit.burst() * per - s[0]);
      }
      return RateDecision.rejected(limit.limit(), cost * per - s[0], limit.burst() * per - s[0]);
    }

    @Override
    public synchronized void refund(String key, long cost) {
      long[] s = state.get(key);
      if (s != null) {
        s[0] = Math.min(limit.burst() * limit.nanosPerPermit(), s[0] + cost * limit.nanosPerPermit());
      }
    }
  }
}
