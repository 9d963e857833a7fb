package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A script called by digest, sent whole after NOSCRIPT, and sent again after TRYAGAIN. */
class LuaScriptTest {

  private static final LuaScript SCRIPT = LuaScript.of("answer", "return 42");
  private static final String[] KEYS = {"k1", "k2"};

  private static CompletableFuture<Object> refused(String message) {
    return CompletableFuture.failedFuture(new RedisCommandExecutionException(message));
  }

  @Test
  void aScriptIsCalledByItsDigest() {
    ScriptedRedis redis = new ScriptedRedis(call -> CompletableFuture.completedFuture(42L));

    assertThat(SCRIPT.runForLong(redis.commands(), KEYS, "a", "b").join()).isEqualTo(42L);

    assertThat(SCRIPT.sha()).isEqualTo(sha1("return 42"));
    assertThat(redis.calls())
        .containsExactly(new ScriptedRedis.Call(
            "evalsha",
            SCRIPT.sha(),
            ScriptOutputType.INTEGER,
            List.of("k1", "k2"),
            List.of("a", "b")));
  }

  @Test
  void aListAnswerIsAskedForAsMulti() {
    ScriptedRedis redis =
        new ScriptedRedis(call -> CompletableFuture.completedFuture(List.of(1L, 2L)));

    assertThat(SCRIPT.run(redis.commands(), KEYS).join()).containsExactly(1L, 2L);
    assertThat(redis.calls().get(0).output()).isEqualTo(ScriptOutputType.MULTI);
  }

  @Test
  void aServerThatDoesNotKnowTheScriptGetsItWholeOnce() {
    ScriptedRedis redis = new ScriptedRedis(call -> call.command().equals("evalsha")
        ? CompletableFuture.failedFuture(new RedisNoScriptException("NOSCRIPT No matching script"))
        : CompletableFuture.completedFuture(7L));

    assertThat(SCRIPT.runForLong(redis.commands(), KEYS, "a").join()).isEqualTo(7L);

    assertThat(redis.calls())
        .extracting(ScriptedRedis.Call::command)
        .containsExactly("evalsha", "eval");
    assertThat(redis.calls().get(1).script()).isEqualTo("return 42");
    assertThat(redis.calls().get(1).keys()).containsExactly("k1", "k2");
    assertThat(redis.calls().get(1).args()).containsExactly("a");
  }

  @Test
  void aRefusalDuringASlotMoveIsSentAgainUntilItRuns() {
    AtomicInteger refusals = new AtomicInteger(3);
    ScriptedRedis redis = new ScriptedRedis(call -> refusals.getAndDecrement() > 0
        ? refused("TRYAGAIN Multiple keys request during rehashing of slot")
        : CompletableFuture.completedFuture(1L));

    assertThat(SCRIPT.runForLong(redis.commands(), KEYS).join()).isEqualTo(1L);

    assertThat(redis.calls()).hasSize(4).allMatch(call -> call.command().equals("evalsha"));
  }

  @Test
  void aSlotMoveRefusalIsSentAgainAtMostSixTimes() {
    ScriptedRedis redis = new ScriptedRedis(call -> refused("TRYAGAIN still moving"));

    assertThatThrownBy(() -> SCRIPT.runForLong(redis.commands(), KEYS).join())
        .isInstanceOf(CompletionException.class)
        .hasRootCauseMessage("TRYAGAIN still moving");

    assertThat(redis.calls()).hasSize(1 + LuaScript.TRY_AGAIN_RETRIES);
  }

  @Test
  void aScriptSentWholeAndRefusedDuringASlotMoveIsSentAgain() {
    AtomicInteger refusals = new AtomicInteger(1);
    ScriptedRedis redis = new ScriptedRedis(call -> call.command().equals("evalsha")
        ? CompletableFuture.failedFuture(new RedisNoScriptException("NOSCRIPT No matching script"))
        : refusals.getAndDecrement() > 0
            ? refused("TRYAGAIN Multiple keys request during rehashing of slot")
            : CompletableFuture.completedFuture(5L));

    assertThat(SCRIPT.runForLong(redis.commands(), KEYS).join()).isEqualTo(5L);

    // the second try asks by digest again (the node may hold it by then), then sends it whole
    assertThat(redis.calls())
        .extracting(ScriptedRedis.Call::command)
        .containsExactly("evalsha", "eval", "evalsha", "eval");
  }

  @Test
  void anyOtherErrorEndsTheCall() {
    ScriptedRedis redis = new ScriptedRedis(call -> refused("CLUSTERDOWN The cluster is down"));

    assertThatThrownBy(() -> SCRIPT.runForLong(redis.commands(), KEYS).join())
        .hasRootCauseMessage("CLUSTERDOWN The cluster is down");

    assertThat(redis.calls()).hasSize(1);
  }

  @Test
  void aScriptIsLoadedFromTheJar() {
    LuaScript release = LuaScript.load("lease_release");

    assertThat(release.name()).isEqualTo("lease_release");
    assertThat(release.toString()).isEqualTo("lease_release.lua (" + release.sha() + ")");
    assertThat(release.sha()).hasSize(40);
  }

  @Test
  void aMissingScriptIsNamed() {
    assertThatThrownBy(() -> LuaScript.load("no_such_script"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("script no_such_script.lua is missing from the jar");
  }

  @Test
  void aPreludeRunsInTheSameScriptAsTheBody() throws Exception {
    ScriptedRedis redis = new ScriptedRedis(call -> call.command().equals("evalsha")
        ? CompletableFuture.failedFuture(new RedisNoScriptException("NOSCRIPT"))
        : CompletableFuture.completedFuture(1L));
    String prelude = body("epoch_check");
    String count = body("lease_count");

    LuaScript one = LuaScript.load("epoch_check", "lease_count");
    LuaScript many = LuaScript.withPreludes("lease_count", "epoch_check", "charge_once");

    assertThat(one.name()).isEqualTo("lease_count");
    assertThat(many.name()).isEqualTo("lease_count");
    one.runForLong(redis.commands(), KEYS).join();
    many.runForLong(redis.commands(), KEYS).join();
    assertThat(redis.calls().get(1).script()).isEqualTo(prelude + "\n" + count);
    assertThat(redis.calls().get(3).script())
        .isEqualTo(prelude + "\n" + body("charge_once") + "\n" + count);
    assertThat(one.sha()).isEqualTo(sha1(prelude + "\n" + count));
  }

  private static String body(String name) throws Exception {
    try (var in = LuaScript.class.getResourceAsStream(name + ".lua")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static String sha1(String text) {
    try {
      return java.util.HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-1")
              .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
