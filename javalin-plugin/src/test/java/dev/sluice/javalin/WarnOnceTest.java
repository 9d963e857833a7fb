package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A warning that can fire on every request is logged at most once an interval, on virtual time. */
class WarnOnceTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(WarnOnceTest.class);

  private final VirtualTime time = new VirtualTime();

  @Test
  void theFirstWarningIsLoggedAtOnceAndRepeatsWithinTheIntervalAreCountedIntoTheNextOne() {
    WarnOnce once =
        new WarnOnce(Warnings.to(log.logger()), "rate rules", time, 30, TimeUnit.SECONDS);
    IllegalStateException cause = new IllegalStateException("store down");

    once.warn("rules failed", cause);
    assertThat(log.events()).singleElement().satisfies(e -> {
      assertThat(e.getFormattedMessage()).isEqualTo("rules failed");
      assertThat(e.getThrowableProxy().getMessage()).isEqualTo("store down");
    });

    once.warn("rules failed", cause);
    time.advance(Duration.ofSeconds(29));
    once.warn("rules failed", cause);
    assertThat(log.events()).hasSize(1);

    time.advance(Duration.ofSeconds(1)); // exactly the interval after the first
    once.warn("rules failed again", null);
    assertThat(log.events()).hasSize(2);
    assertThat(log.events().get(1).getFormattedMessage())
        .isEqualTo("rules failed again (2 similar warnings suppressed)");
    assertThat(log.events().get(1).getThrowableProxy()).isNull();

    // the count starts over: the next one after the interval mentions none
    time.advance(Duration.ofSeconds(30));
    once.warn("quiet since", null);
    assertThat(log.events()).hasSize(3);
    assertThat(log.events().get(2).getFormattedMessage()).isEqualTo("quiet since");
  }
}
