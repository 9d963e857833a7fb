package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Another module's scripts and connection: what is refused before anything is sent. */
class RedisScriptTest {

  @Test
  void aScriptIsNamedAndHasABody() {
    RedisScript script = RedisScript.of("one", "return 1");

    assertThat(script.name()).isEqualTo("one");
    assertThat(script.lua().name()).isEqualTo("one");
    assertThat(script.toString()).isEqualTo("one.lua (" + script.lua().sha() + ")");
  }

  @Test
  void aBlankNameOrBodyIsRefused() {
    assertThatThrownBy(() -> RedisScript.of(" ", "return 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("script name must not be blank but was ' '");
    assertThatThrownBy(() -> RedisScript.of(null, "return 1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisScript.of("one", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("script one must have a body");
    assertThatThrownBy(() -> RedisScript.of("one", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aScriptIsLoadedFromBesideAClass() {
    RedisScript script = RedisScript.load(LuaScript.class, "lease_count");

    assertThat(script.name()).isEqualTo("lease_count");
    assertThat(script.lua().sha()).isEqualTo(LuaScript.load("lease_count").sha());
  }

  @Test
  void aMissingScriptNamesWhereItWasLookedFor() {
    assertThatThrownBy(() -> RedisScript.load(RedisScriptTest.class, "nowhere"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("script nowhere.lua is missing beside dev.sluice.redis.RedisScriptTest");
  }

  @Test
  void aConnectionNeedsAUriAndATimeout() {
    URI uri = URI.create("redis://127.0.0.1:1");

    assertThatThrownBy(() -> RedisConnection.open(null, Duration.ofMillis(50)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis uri must not be null");
    assertThatThrownBy(() -> RedisConnection.open(uri, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis timeout must be > 0 but was PT0S");
    assertThatThrownBy(() -> RedisConnection.open(uri, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisConnection.open(uri, null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
