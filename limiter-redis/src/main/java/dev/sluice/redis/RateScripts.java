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

  private final LuaScript tat = LuaScript.load("tat");
  private final LuaScript fixedWindow = LuaScript.load("fixed_window");
  private final LuaScript slidingWindow = LuaScript.load("sliding_window");
  private final LuaScript slidingLog = LuaScript.load("sliding_log");

  CompletableFuture<List<Object>> acquire(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request) {
    return run(redis, request, request.cost(), "0");
  }

  /** Batched mode: takes up to {@code wanted} permits; the reply's sixth number is how many. */
  CompletableFuture<List<Object>> take(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request, long wanted) {
    return run(redis, request, wanted, "1");
  }

  /** Reconcile: counts {@code request}'s cost whatever the state (see the scripts' mode 2). */
  CompletableFuture<List<Object>> charge(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request) {
    return run(redis, request, request.cost(), "2");
  }

  CompletableFuture<List<Object>> refund(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request) {
    return run(redis, request, -request.cost(), "0");
  }

  private CompletableFuture<List<Object>> run(
      RedisScriptingAsyncCommands<String, String> redis, RateRequest request, long cost,
      String takeUpTo) {
    RateLimit limit = request.limit();
    String[] keys = {KeyLayout.rate(request.ruleId(), request.key(), request.algorithm())};
    String periodMicros = Long.toString(Math.max(1, limit.period().toNanos() / 1_000));
    LuaScript script = switch (request.algorithm()) {
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET, LEAKY_BUCKET_SHAPER -> tat;
      case FIXED_WINDOW -> fixedWindow;
      case SLIDING_WINDOW -> slidingWindow;
      case SLIDING_LOG -> slidingLog;
    };
    String shaper = request.algorithm() == dev.sluice.rate.Algorithm.LEAKY_BUCKET_SHAPER ? "1" : "0";
    return script.run(redis, keys, Long.toString(limit.limit()), periodMicros,
        Long.toString(limit.burst()), Long.toString(cost), shaper, takeUpTo);
  }

  /** {allowed, remaining, retry_after_us, reset_after_us, delay_us}; a retry of -1 means never. */
  static RateDecision decision(RateRequest request, List<Object> reply) {
    boolean allowed = number(reply, 0) == 1;
    long retryMicros = number(reply, 2);
    long retryNanos = retryMicros < 0 ? Long.MAX_VALUE : nanos(retryMicros);
    return new RateDecision(allowed, request.limit().limit(), Math.max(0, number(reply, 1)),
        allowed ? 0 : retryNanos, nanos(number(reply, 3)), nanos(number(reply, 4)));
  }

  static long number(List<Object> reply, int index) {
    Object value = reply.get(index);
    if (value instanceof Long number) {
      return number;
    }
    throw new IllegalStateException("unexpected script reply " + reply);
  }

  private static long nanos(long micros) {
    return micros <= 0 ? 0 : Math.multiplyExact(micros, 1_000L);
  }
}
