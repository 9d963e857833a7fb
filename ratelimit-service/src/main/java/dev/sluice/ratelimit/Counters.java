package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where the service counts: fixed windows of one {@link Unit}, aligned to the Unix epoch, one
 * counter per key and window (or another of Sluice's algorithms, one state per key). In this process ({@link LocalCounters}) or in a shared store ({@link
 * StoreCounters}, Redis through limiter-redis).
 */
interface Counters extends AutoCloseable {

  /**
   * One descriptor's share of a request.
   *
   * @param key the counter's key: the domain and the descriptor's entries
   * @param requestsPerUnit the limit per window, at least 1
   * @param unit the window
   * @param hits how many the request counts, at least 1
   * @param algorithm how the limit is counted ({@link Algorithm#FIXED_WINDOW}: envoy/ratelimit's
   *     windows of one unit aligned to the epoch)
   * @param check whether the hit only checks the count (a descriptor's {@code hits_addend} 0):
   *     taken to decide, then given back
   */
  record Hit(
      String key, long requestsPerUnit, Unit unit, long hits, Algorithm algorithm, boolean check) {

    Hit(String key, long requestsPerUnit, Unit unit, long hits, Algorithm algorithm) {
      this(key, requestsPerUnit, unit, hits, algorithm, false);
    }

    Hit(String key, long requestsPerUnit, Unit unit, long hits) {
      this(key, requestsPerUnit, unit, hits, Algorithm.FIXED_WINDOW);
    }
  }

  /**
   * Counts every hit in the window of {@code epochSecond}; one decision per hit, in order. A fixed
   * window's hit counts whatever the window's count, as envoy/ratelimit's {@code INCRBY} does, and
   * is allowed when the count after it is within the limit (its remaining: the limit less that
   * count). Another algorithm's hit that would pass the limit is refused and counts nothing. Never
   * completes exceptionally.
   */
  CompletionStage<List<RateDecision>> take(List<Hit> hits, long epochSecond);

  /**
   * Gives back hits an earlier {@link #take} in the same window counted (a fixed window's, refused
   * or not). Best effort.
   */
  CompletionStage<Void> giveBack(List<Hit> hits, long epochSecond);

  /** A short description for the start-up line, e.g. {@code local} or the store's. */
  String describe();

  @Override
  void close();
}
