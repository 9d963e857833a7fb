package dev.sluice.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One Lua script shipped in this jar, called by its SHA-1 (EVALSHA) so that a decision sends a
 * digest instead of the whole body. A server that does not know the script yet (first call, a
 * restart, SCRIPT FLUSH) answers NOSCRIPT; the call is then repeated once as EVAL, which also
 * caches the body for the next EVALSHA.
 *
 * <p>A Redis Cluster that is moving the slot of a script's keys refuses a script whose keys are
 * split between the two masters with TRYAGAIN; the script did not run, so it is sent again after a
 * short pause (1, 2, 4 … 32 ms, as cluster clients do), until the move of the remaining keys lets
 * it run on one of them. The caller's timeout still bounds the whole call.
 */
final class LuaScript {

  private final String name;
  private final String body;
  private final String sha;

  private LuaScript(String name, String body) {
    this.name = name;
    this.body = body;
    this.sha = sha1(body);
  }

  /** A script whose body the caller has (another module's, see {@link RedisScript}). */
  static LuaScript of(String name, String body) {
    return new LuaScript(name, body);
  }

  /** Loads {@code /dev/sluice/redis/<name>.lua} from the classpath. */
  static LuaScript load(String name) {
    String resource = name + ".lua";
    try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("script " + resource + " is missing from the jar");
      }
      return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }

  /**
   * Loads {@code <name>.lua} with {@code <prelude>.lua} in front of it: one script, one digest, so
   * the prelude runs in the same atomic step as the body (and may answer for it).
   */
  static LuaScript load(String prelude, String name) {
    return new LuaScript(name, load(prelude).body + "\n" + load(name).body);
  }

  /** Loads {@code <name>.lua} with the preludes in front of it, in order (see above). */
  static LuaScript withPreludes(String name, String... preludes) {
    StringBuilder body = new StringBuilder();
    for (String prelude : preludes) {
      body.append(load(prelude).body).append('\n');
    }
    return new LuaScript(name, body.append(load(name).body).toString());
  }

  String name() {
    return name;
  }

  String sha() {
    return sha;
  }

  /** Runs a script that answers a list; the future fails with whatever Redis reported. */
  CompletableFuture<List<Object>> run(
      RedisScriptingAsyncCommands<String, String> redis, String[] keys, String... args) {
    return run(redis, ScriptOutputType.MULTI, keys, args);
  }

  /** Runs a script that answers one integer. */
  CompletableFuture<Long> runForLong(
      RedisScriptingAsyncCommands<String, String> redis, String[] keys, String... args) {
    return run(redis, ScriptOutputType.INTEGER, keys, args);
  }

  /** How many times a script refused with TRYAGAIN is sent again (pauses 1, 2, 4 … 32 ms). */
  static final int TRY_AGAIN_RETRIES = 6;

  private <T> CompletableFuture<T> run(
      RedisScriptingAsyncCommands<String, String> redis,
      ScriptOutputType output,
      String[] keys,
      String[] args) {
    return run(redis, output, keys, args, 0);
  }

  private <T> CompletableFuture<T> run(
      RedisScriptingAsyncCommands<String, String> redis,
      ScriptOutputType output,
      String[] keys,
      String[] args,
      int retry) {
    return redis
        .<T>evalsha(sha, output, keys, args)
        .toCompletableFuture()
        .exceptionallyCompose(error -> unwrap(error) instanceof RedisNoScriptException
            ? redis.<T>eval(body, output, keys, args).toCompletableFuture()
            : CompletableFuture.failedFuture(error))
        .exceptionallyCompose(error -> {
          if (retry >= TRY_AGAIN_RETRIES || !refusedDuringSlotMove(error)) {
            return CompletableFuture.failedFuture(error);
          }
          Executor later = CompletableFuture.delayedExecutor(1L << retry, TimeUnit.MILLISECONDS);
          return CompletableFuture.supplyAsync(() -> null, later)
              .thenCompose(ignored -> this.<T>run(redis, output, keys, args, retry + 1));
        });
  }

  /**
   * Whether Redis refused the call because a Redis Cluster is moving the slot of its keys and they
   * are split between two masters (TRYAGAIN): nothing ran, and the call may be sent again.
   */
  static boolean refusedDuringSlotMove(Throwable error) {
    Throwable cause = unwrap(error);
    return cause instanceof RedisCommandExecutionException
        && cause.getMessage() != null
        && cause.getMessage().startsWith("TRYAGAIN");
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static String sha1(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-1", e);
    }
  }

  @Override
  public String toString() {
    return name + ".lua (" + sha + ")";
  }
}
