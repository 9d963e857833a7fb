package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisCommandTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The public way another module reaches Redis, against a real redis-server. */
@Tag("integration")
class RedisConnectionTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration TIMEOUT = Duration.ofMillis(500);

  // INCRBY, answering the new value and the script's own argument back as a list
  private static final RedisScript ADD =
      RedisScript.of("add", "local v = redis.call('INCRBY', KEYS[1], ARGV[1]) return {v, ARGV[1]}");

  @Test
  void scriptsAreSentByTheirDigestOnceTheServerKnowsThem() {
    REDIS.server().command("SCRIPT", "FLUSH");
    REDIS.server().command("CONFIG", "RESETSTAT");
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      for (int i = 1; i <= 5; i++) {
        assertThat(redis.run(ADD, new String[] {"by-digest"}, "2").join())
            .containsExactly(2L * i, "2");
      }
    }

    // the first EVALSHA finds no script (NOSCRIPT) and one EVAL sends the body; then digests only
    assertThat(REDIS.server().calls("eval")).isEqualTo(1);
    assertThat(REDIS.server().calls("evalsha")).isEqualTo(5);
  }

  @Test
  void aScriptFlushIsSurvivedBySendingTheBodyOnce() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      assertThat(
              redis.runForLong(RedisScript.of("one", "return 1"), new String[0]).join())
          .isEqualTo(1L);
      REDIS.server().command("SCRIPT", "FLUSH");
      REDIS.server().command("CONFIG", "RESETSTAT");

      assertThat(
              redis.runForLong(RedisScript.of("one", "return 1"), new String[0]).join())
          .isEqualTo(1L);
      assertThat(
              redis.runForLong(RedisScript.of("one", "return 1"), new String[0]).join())
          .isEqualTo(1L);

      assertThat(REDIS.server().calls("eval")).isEqualTo(1);
      assertThat(REDIS.server().calls("evalsha")).isEqualTo(2);
    }
  }

  @Test
  void commandsOtherThanScriptsGoOverTheSameConnection() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      redis.call(c -> c.rpush("plain", "a", "b")).join();

      assertThat(redis.call(c -> c.lrange("plain", 0, -1)).join()).isEqualTo(List.of("a", "b"));
    }
  }

  @Test
  void aCommandThatOutlastsTheTimeoutFails() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      // BLPOP on an empty list waits its own 2 s: four times the bound
      assertThatThrownBy(() -> redis.call(c -> c.blpop(2, "nothing-here")).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(RedisCommandTimeoutException.class);
    }
  }

  @Test
  void openingARedisThatIsNotThereFailsNamingIt() {
    int port = RedisServer.freePort();

    assertThatThrownBy(() -> RedisConnection.open(URI.create("redis://127.0.0.1:" + port), TIMEOUT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("cannot connect to redis at redis://127.0.0.1:" + port)
        // and why: the refusal, not a wait that ran out
        .satisfies(e -> assertThat(e.getMessage()).endsWith(": " + e.getCause().getMessage()));
  }

  @Test
  void aClosedConnectionSendsNothingMore() {
    RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT);
    assertThat(redis.call(c -> c.ping()).join()).isEqualTo("PONG");

    redis.close();

    assertThatThrownBy(() -> redis.call(c -> c.ping()).join())
        .isInstanceOf(CompletionException.class);
  }

  @Test
  void aUriThatIsNoRedisUriIsRefused() {
    assertThatThrownBy(() -> RedisConnection.open(URI.create("http://127.0.0.1:80"), TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redis://host:port");
  }

  @Test
  void aMissingUriOrATimeoutThatIsNoBoundIsRefusedNamingIt() {
    URI uri = REDIS.server().uri();

    assertThatThrownBy(() -> RedisConnection.open(null, TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis uri must not be null");
    assertThatThrownBy(() -> RedisConnection.open(uri, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis timeout must be > 0 but was null");
    assertThatThrownBy(() -> RedisConnection.open(uri, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis timeout must be > 0 but was PT0S");
    assertThatThrownBy(() -> RedisConnection.open(uri, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis timeout must be > 0 but was PT-0.001S");
  }

  @Test
  void aTimeoutOfOneMillisecondIsABound() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), Duration.ofMillis(1))) {
      assertThatThrownBy(
              () -> redis.call(c -> c.blpop(1, "nothing-here-either")).join())
          .hasCauseInstanceOf(RedisCommandTimeoutException.class);
    }
  }

  @Test
  void aCommandThatThrowsFailsItsFutureInsteadOfTheCaller() {
    IllegalStateException thrown = new IllegalStateException("refused by the caller's own code");
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      CompletableFuture<String> failed = redis.call(c -> {
        throw thrown;
      });

      assertThat(failed).isCompletedExceptionally();
      assertThatThrownBy(failed::join).hasCause(thrown);
      // the connection is as good as before
      assertThat(redis.call(c -> c.ping()).join()).isEqualTo("PONG");
    }
  }

  @Test
  void aScriptGivenNoKeysArrayFailsItsFutureInsteadOfTheCaller() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      assertThat(redis.run(ADD, null, "1")).isCompletedExceptionally();
      assertThat(redis.runForLong(RedisScript.of("one", "return 1"), null))
          .isCompletedExceptionally();
    }
  }

  @Test
  void aConnectionSaysWhereItPoints() {
    try (RedisConnection redis = RedisConnection.open(REDIS.server().uri(), TIMEOUT)) {
      assertThat(redis).hasToString("redis://127.0.0.1:" + REDIS.server().port());
    }
  }

  @Test
  void aRestartedRedisIsUsedAgainWithoutReopening() {
    try (RedisServer server = RedisServer.start();
        RedisConnection redis = RedisConnection.open(server.uri(), TIMEOUT)) {
      assertThat(
              redis.runForLong(RedisScript.of("two", "return 2"), new String[0]).join())
          .isEqualTo(2L);

      server.restart(); // empty: the script is gone too

      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() ->
              redis.runForLong(RedisScript.of("two", "return 2"), new String[0]).join() == 2L);
    }
  }
}
