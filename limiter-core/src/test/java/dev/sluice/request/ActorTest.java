package dev.sluice.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Actors' names (HTTP tokens of 1 to 128 characters) and how a key is bounded. */
class ActorTest {

  @Test
  void aHeaderNameMayUseEveryTokenCharacterAndTheEndsOfEachRange() {
    Actor actor = Actor.parse("header:aAzZ09!#$%&'*+-.^_`|~");

    assertThat(actor).isEqualTo(new Actor.Header("aazz09!#$%&'*+-.^_`|~"));
  }

  @Test
  void aNameWithACharacterJustOutsideATokenRangeIsRefused() {
    for (String outside : new String[] {"@", "[", "{", "/", ":", " "}) {
      assertThatThrownBy(() -> new Actor.Custom("a" + outside))
          .as("'%s'", outside)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be an HTTP token");
    }
  }

  @Test
  void aNameHasAtMost128Characters() {
    assertThat(new Actor.Custom("c".repeat(128)).name()).hasSize(128);
    assertThatThrownBy(() -> new Actor.Custom("c".repeat(129)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("custom actor name must have 1 to 128 characters");
  }

  @Test
  void aPlainPrintableKeyOfUpToSixtyFourCharactersIsKeptAsItIs() {
    String longest = "k".repeat(ActorKeys.MAX_PLAIN_LENGTH);

    assertThat(ActorKeys.bound(longest)).isEqualTo(longest);
    assertThat(ActorKeys.bound("!a~")).isEqualTo("!a~");
  }

  @Test
  void aLongerKeyIsHashed() {
    String bounded = ActorKeys.bound("k".repeat(ActorKeys.MAX_PLAIN_LENGTH + 1));

    assertThat(bounded).startsWith("~").hasSize(1 + 22);
  }

  @Test
  void aKeyWithASpaceOrACharacterPastAsciiIsHashed() {
    assertThat(ActorKeys.bound("a b")).startsWith("~");
    assertThat(ActorKeys.bound("a\u007fb")).startsWith("~");
    assertThat(ActorKeys.bound("~plain")).startsWith("~").isNotEqualTo("~plain");
  }

  @Test
  void theKeyOfAnActorIsReadFromTheRequest() {
    RequestInfo request = new RequestInfo() {
      @Override
      public String method() {
        return "GET";
      }

      @Override
      public String path() {
        return "/a";
      }

      @Override
      public String clientIp() {
        return "10.0.0.7";
      }

      @Override
      public Optional<String> account() {
        return Optional.of("alice");
      }

      @Override
      public Optional<String> device() {
        return Optional.empty();
      }

      @Override
      public Optional<String> header(String name) {
        return name.equalsIgnoreCase("x-tenant") ? Optional.of("acme") : Optional.empty();
      }
    };

    assertThat(Actor.keyOf(Actor.parse("ip")).apply(request)).isEqualTo("10.0.0.7");
    assertThat(Actor.keyOf(Actor.parse("account")).apply(request)).isEqualTo("alice");
    assertThat(Actor.keyOf(Actor.parse("device")).apply(request)).as("none").isNull();
    assertThat(Actor.keyOf(Actor.parse("header:x-tenant")).apply(request)).isEqualTo("acme");
  }
}
