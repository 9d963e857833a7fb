package dev.sluice.client;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.time.NanoClock;

/**
 * Hands out send slots at the pace, evenly spaced, from the core's leaky-bucket shaper.
 *
 * <p>The shaper's slot for a request is {@code max(TAT, now)} and the next TAT is that slot plus the
 * emission interval {@code T}, so consecutive slots are always at least {@code T} apart: in any
 * half-open window of length {@code W} there are at most {@code ceil(W / T)} slots, whatever the
 * shaper's burst. The burst only says how far ahead a slot may be reserved ({@code (burst - 1) x T});
 * the client reserves up to its lookahead, so a timer that fires a little late still finds the next
 * slot reserved instead of losing it (with burst 1 every late timer would shift every later slot).
 *
 * <p>A pace change builds a new shaper whose first slot is no earlier than the last slot plus the
 * new interval, so spacing survives the change. Not thread-safe: the client calls it under its lock.
 */
final class Pacer {

  /** A reservation, or how long until one can be made ({@code delayNanos < 0}: no pace, hold). */
  record Slot(boolean reserved, long delayNanos) {}

  private static final String KEY = "pace";

  private final NanoClock clock;
  private final long lookaheadNanos;
  private RateLimiter shaper; // null: no pace granted, send nothing
  private long intervalNanos;
  private long lastSlot;
  private boolean anySlot;
  private long resumeAt;
  private boolean resumePending;

  Pacer(NanoClock clock, long lookaheadNanos) {
    this.clock = clock;
    this.lookaheadNanos = lookaheadNanos;
  }

  /** Sends from now on at {@code pace}; null holds every send until a pace is set again. */
  void setPace(RateLimit pace) {
    if (pace == null) {
      shaper = null;
      return;
    }
    intervalNanos = Math.max(1, (pace.period().toNanos() + pace.limit() - 1) / pace.limit());
    long burst = Math.max(2, lookaheadNanos / intervalNanos + 1);
    shaper = RateLimiter.builder(Algorithm.LEAKY_BUCKET_SHAPER, pace.withBurst(burst))
        .clock(clock)
        .unkeyed()
        .build();
    if (anySlot) {
      resumeAt = lastSlot + intervalNanos;
      resumePending = true;
    }
  }

  /** Reserves the next slot if one is free within the lookahead. */
  Slot tryReserve(long now) {
    if (shaper == null) {
      return new Slot(false, -1);
    }
    if (resumePending) {
      if (resumeAt - now > 0) {
        return new Slot(false, resumeAt - now);
      }
      resumePending = false;
    }
    RateDecision decision = shaper.tryAcquire(KEY, 1);
    if (!decision.allowed()) {
      return new Slot(false, Math.max(1, decision.retryAfterNanos()));
    }
    lastSlot = now + decision.delayNanos();
    anySlot = true;
    return new Slot(true, decision.delayNanos());
  }
}
