package dev.sluice.concurrency;

import java.util.List;

/**
 * What {@link ConcurrencyLimiter#reconfigure} did: the spec now in force, each change applied (in
 * words, e.g. {@code "maxConcurrency 2 -> 8"}), and each change it could not apply to a running
 * limiter, which takes effect only when the limiter is built again.
 *
 * @param inForce the spec the limiter runs with now
 * @param applied the changes made, in the order applied
 * @param needsRestart the changes not made
 */
public record Reconfiguration(
    LimiterSpec inForce, List<String> applied, List<String> needsRestart) {

  /** Copies the lists. */
  public Reconfiguration {
    applied = List.copyOf(applied);
    needsRestart = List.copyOf(needsRestart);
  }

  /** Whether anything differed from the spec in force before. */
  public boolean changed() {
    return !applied.isEmpty() || !needsRestart.isEmpty();
  }
}
