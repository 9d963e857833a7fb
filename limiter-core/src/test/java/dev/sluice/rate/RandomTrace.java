package dev.sluice.rate;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A random request trace for one key: gaps drawn around a mean that itself drifts, so a trace has
 * idle spells, steady stretches and bursts well above the limit; costs mostly 1, sometimes more.
 */
record RandomTrace(List<Request> requests) {

  /** One request: {@code gapNanos} after the previous one, taking {@code cost} permits. */
  record Request(long gapNanos, long cost) {}

  static RandomTrace generate(Random random, int length, long meanGapNanos, long maxCost) {
    List<Request> requests = new ArrayList<>(length);
    double scale = 1;
    for (int i = 0; i < length; i++) {
      if (random.nextInt(50) == 0) {
        // change regime: from 20x faster to 5x slower than the mean
        scale = Math.exp(random.nextDouble() * Math.log(100)) / 20;
      }
      long gap = random.nextInt(10) == 0
          ? 0
          : (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos * scale);
      long cost = random.nextInt(5) == 0 ? 1 + random.nextInt((int) maxCost) : 1;
      requests.add(new Request(gap, cost));
    }
    return new RandomTrace(requests);
  }
}
