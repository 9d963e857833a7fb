package dev.sluice.redis;

import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Which script decides which algorithm, the arguments it takes and how its reply becomes a {@link
 * RateDecision}. Token bucket, GCRA and the leaky bucket (meter and shaper) share the theoretical
 * arrival time script: for the same limit, period and burst they make the same decisions.
 */
final class RateScripts {

  // each behind epoch_check.lua: a decision sent with the epoch it knows is not made on state
  // Redis lost (see LossWatch); charges and refunds send no epoch and are not checked. Then
  // charge_once.lua: a charge sent again after its answer was lost is not counted twice
  private final LuaScript tat = LuaScript.withPreludes("tat", EPOCH_CHECK, CHARGE_ONCE);
  private final LuaScript fixedWindow =
      LuaScript.withPreludes("fixed_window", EPOCH_CHECK, CHARGE_ONCE);
  private final LuaScript slidingWindow =
      LuaScript.withPreludes("sliding_window", EPOCH_CHECK, CHARGE_ONCE);
  private final LuaScript slidingLog =
      LuaScript.withPreludes("sliding_log", EPOCH_CHECK, CHARGE_ONCE);

  private static final String EPOCH_CHECK = "epoch_check";
  private static final String CHARGE_ONCE = "charge_once";

  /**
   * Decides {@code request}. {@code epoch}: the epoch this node knows ({@code ""} for none yet),
   * checked by the script (see {@link #lostEpoch}), or {@code null} for no check (Redis Cluster).
   */
  CompletableFuture<List<Object>> acquire(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request, String epoch) {
    return run(redis, request, request.cost(), "0", epoch);
  }

  /**
   * Counts {@code request}'s cost whatever the count (see {@link
   * dev.sluice.store.RateStore#countAndDecide}): the fixed window's mode 3; another algorithm
   * decides as {@link #acquire} does.
   */
  CompletableFuture<List<Object>> count(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request, String epoch) {
    String mode = request.algorithm() == dev.sluice.rate.Algorithm.FIXED_WINDOW ? "3" : "0";
    return run(redis, request, request.cost(), mode, epoch);
  }

  /** Batched mode: takes up to {@code wanted} permits; the reply's sixth number is how many. */
  CompletableFuture<List<Object>> take(
      RedisScriptingAsyncCommands<String, String> redis,
      RateRequest request,
      long wanted,
      String epoch) {
    return run(redis, request, wanted, "1", epoch);
  }

  /**
   * The current epoch when the script refused to decide because the caller's was another (Redis
   * lost its counts since), else {@code null}.
   */
  static String lostEpoch(List<Object> reply) {
    if (reply.size() == 2
        && reply.get(0) instanceof Long first
        && first == -1
        && reply.get(1) instanceof String epoch) {
      return epoch;
    }
    return null;
  }

  /**
   * Reconcile: counts {@code charge} whatever the state (see the scripts' mode 2), once however
   * often it is sent; the bucket scripts add what is left at {@code now} of its backlog.
   */
  CompletableFuture<List<Object>> charge(
      RedisScriptingAsyncCommands<String, String> redis, Debts.Charge charge, long now) {
    RateRequest request = charge.request();
    String state = KeyLayout.rate(request.ruleId(), request.key(), request.algorithm());
    long periodMicros = Math.max(1, request.limit().period().toNanos() / 1_000);
    long backlogMicros = charge.backlogMicros(now);
    // the node sends it until it is moot (see Debts.Charge.moot): remembered at least as long
    long rememberMicros = Math.max(periodMicros, backlogMicros) + 1_000_000;
    return script(request)
        .run(
            redis,
            new String[] {state, KeyLayout.charges(state)},
            Long.toString(request.limit().limit()),
            Long.toString(periodMicros),
            Long.toString(request.limit().burst()),
            Long.toString(request.cost()),
            "0",
            "2",
            "",
            Long.toString(backlogMicros),
            charge.id(),
            Long.toString(rememberMicros));
  }

  CompletableFuture<List<Object>> refund(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request) {
    return run(redis, request, -request.cost(), "0", null);
  }

  private CompletableFuture<List<Object>> run(
      RedisScriptingAsyncCommands<String, String> redis,
      RateRequest request,
      long cost,
      String mode,
      String epoch) {
    RateLimit limit = request.limit();
    String state = KeyLayout.rate(request.ruleId(), request.key(), request.algorithm());
    String[] keys =
        epoch == null ? new String[] {state} : new String[] {state, LossWatch.EPOCH_KEY};
    String periodMicros = Long.toString(Math.max(1, limit.period().toNanos() / 1_000));
    LuaScript script = script(request);
    String shaper =
        request.algorithm() == dev.sluice.rate.Algorithm.LEAKY_BUCKET_SHAPER ? "1" : "0";
    return script.run(
        redis,
        keys,
        Long.toString(limit.limit()),
        periodMicros,
        Long.toString(limit.burst()),
        Long.toString(cost),
        shaper,
        mode,
        epoch == null ? "" : epoch);
  }

  private LuaScript script(RateRequest request) {
    return switch (request.algorithm()) {
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET, LEAKY_BUCKET_SHAPER -> tat;
      case FIXED_WINDOW -> fixedWindow;
      case SLIDING_WINDOW -> slidingWindow;
      case SLIDING_LOG -> slidingLog;
    };
  }

  /** {allowed, remaining, retry_after_us, reset_after_us, delay_us}; a retry of -1 means never. */
  static RateDecision decision(RateRequest request, List<Object> reply) {
    boolean allowed = number(reply, 0) == 1;
    long retryMicros = number(reply, 2);
    long retryNanos = retryMicros < 0 ? Long.MAX_VALUE : nanos(retryMicros);
    return new RateDecision(
        allowed,
        request.limit().limit(),
        Math.max(0, number(reply, 1)),
        allowed ? 0 : retryNanos,
        nanos(number(reply, 3)),
        nanos(number(reply, 4)));
  }

  static long number(List<Object> reply, int index) {
    Object value = reply.get(index);
    if (value instanceof Long number) {
      return number;
    }
    throw new IllegalStateException("unexpected script reply " + reply);
  }

  /**
   * Saturated: a bucket of a long period and a large burst resets in more microseconds than a long
   * holds in nanoseconds (2,000 years: a limit of 2 per 8,009 hours with a burst near the largest a
   * rules file takes), and a decision of the script must never become an error.
   */
  static long nanos(long micros) {
    if (micros <= 0) {
      return 0;
    }
    return micros >= Long.MAX_VALUE / 1_000L ? Long.MAX_VALUE : micros * 1_000L;
  }
}
