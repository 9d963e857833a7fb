package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.store.Stores;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Counts in a shared store (Redis through limiter-redis), so every replica of the service counts
 * on the same counters. A counter's key carries the start of its window, as envoy/ratelimit's keys
 * do: the store's fixed window opens with a key's first hit and lasts one unit, so it never ends
 * inside the epoch-aligned window its key names. While the store is down, the store's own policy
 * ({@code sluice.redis.on-failure}, local share by default) decides.
 */
final class StoreCounters implements Counters {

  static final String RULE_ID = "rls";

  /** Longer keys are stored by their digest, so a descriptor's size does not size Redis's keys. */
  static final int MAX_KEY_LENGTH = 256;

  private final Stores stores;
  private final RateStore rates;

  StoreCounters(Stores stores) {
    this.stores = stores;
    this.rates = stores.rates();
  }

  @Override
  public CompletionStage<List<RateDecision>> take(List<Hit> hits, long epochSecond) {
    // a fixed window counts whatever its count, as envoy/ratelimit's INCRBY does
    return rates.countAndDecide(requests(hits, epochSecond));
  }

  @Override
  public CompletionStage<Void> giveBack(List<Hit> hits, long epochSecond) {
    return rates.refund(requests(hits, epochSecond));
  }

  private static List<RateRequest> requests(List<Hit> hits, long epochSecond) {
    List<RateRequest> requests = new ArrayList<>(hits.size());
    for (Hit hit : hits) {
      requests.add(new RateRequest(
          RULE_ID,
          // envoy/ratelimit's key names the window; another algorithm keeps one state per key,
          // named by the algorithm so that a changed file never reads another's state
          hit.algorithm() == Algorithm.FIXED_WINDOW
              ? bounded(hit.key()) + "_" + windowStart(epochSecond, hit.unit())
              : bounded(hit.key()) + "_" + hit.algorithm().id(),
          hit.algorithm(),
          RateLimit.of(hit.requestsPerUnit(), period(hit)),
          hit.hits()));
    }
    return requests;
  }

  /**
   * How long the store keeps a counter. A window's counter lives two units: a decision reads its
   * window from the replica's clock and then runs in Redis, so one made at the end of a window may
   * reach Redis after Redis's clock has passed that end; it must still find the window's count there,
   * not a new counter (which would admit the whole limit again in that window). The key names the
   * window, so the longer life never carries a count into the next one.
   */
  static Duration period(Hit hit) {
    return hit.algorithm() == Algorithm.FIXED_WINDOW
        ? hit.unit().twoPeriods()
        : hit.unit().period();
  }

  /** A key of at most {@link #MAX_KEY_LENGTH} characters: a longer one by its SHA-256 digest. */
  static String bounded(String key) {
    if (key.length() <= MAX_KEY_LENGTH) {
      return key;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  static long windowStart(long epochSecond, Unit unit) {
    return Math.floorDiv(epochSecond, unit.seconds()) * unit.seconds();
  }

  @Override
  public String describe() {
    return rates.describe();
  }

  @Override
  public void close() {
    stores.close();
  }
}
