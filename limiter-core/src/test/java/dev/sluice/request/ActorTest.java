package dev.sluice.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
