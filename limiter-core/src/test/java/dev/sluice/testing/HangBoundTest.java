package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The wall-time bound of a wait that should take no time: ten seconds, or the property's. */
class HangBoundTest {

  private String before;

  @BeforeEach
  void remember() {
    before = System.getProperty(HangBound.PROPERTY);
  }

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(HangBound.PROPERTY);
    } else {
      System.setProperty(HangBound.PROPERTY, before);
    }
  }

  @Test
  void tenSecondsUnlessSet() {
    System.clearProperty(HangBound.PROPERTY);
    assertThat(HangBound.get()).isEqualTo(Duration.ofSeconds(10));
    System.setProperty(HangBound.PROPERTY, " ");
    assertThat(HangBound.get()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void theSetDuration() {
    System.setProperty(HangBound.PROPERTY, " PT1.5S ");
    assertThat(HangBound.get()).isEqualTo(Duration.ofMillis(1_500));
  }

  @Test
  void aBadValueIsRefusedNamingTheProperty() {
    System.setProperty(HangBound.PROPERTY, "1s");
    assertThatThrownBy(HangBound::get)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("-Dtest.hangBound must be an ISO-8601 duration such as PT1S but was '1s'");
    System.setProperty(HangBound.PROPERTY, "PT0S");
    assertThatThrownBy(HangBound::get)
        .hasMessage("-Dtest.hangBound must be a positive duration but was 'PT0S'");
    System.setProperty(HangBound.PROPERTY, "-PT1S");
    assertThatThrownBy(HangBound::get)
        .hasMessage("-Dtest.hangBound must be a positive duration but was '-PT1S'");
  }
}
