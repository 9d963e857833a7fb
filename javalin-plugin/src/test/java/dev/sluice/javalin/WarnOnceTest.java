package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A warning that can fire on every request is logged at most once an interval, on virtual time. */
class WarnOnceTest {

  private final Logger log = (Logger) LoggerFactory.getLogger(WarnOnceTest.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final VirtualTime time = new VirtualTime();

  {
    logged.start();
    log.addAppender(logged);
  }

  @AfterEach
  void detach() {
    log.detachAppender(logged);
  }

  @Test
  void theFirstWarningIsLoggedAtOnceAndRepeatsWithinTheIntervalAreCountedIntoTheNextOne() {
    WarnOnce once = new WarnOnce(Warnings.to(log), "rate rules", time, 30, TimeUnit.SECONDS);
    IllegalStateException cause = new IllegalStateException("store down");

    once.warn("rules failed", cause);
    assertThat(logged.list).singleElement().satisfies(e -> {
      assertThat(e.getFormattedMessage()).isEqualTo("rules failed");
      assertThat(e.getThrowableProxy().getMessage()).isEqualTo("store down");
    });

    once.warn("rules failed", cause);
    time.advance(Duration.ofSeconds(29));
    once.warn("rules failed", cause);
    assertThat(logged.list).hasSize(1);

    time.advance(Duration.ofSeconds(1)); // exactly the interval after the first
    once.warn("rules failed again", null);
    assertThat(logged.list).hasSize(2);
    assertThat(logged.list.get(1).getFormattedMessage())
        .isEqualTo("rules failed again (2 similar warnings suppressed)");
    assertThat(logged.list.get(1).getThrowableProxy()).isNull();

    // the count starts over: the next one after the interval mentions none
    time.advance(Duration.ofSeconds(30));
    once.warn("quiet since", null);
    assertThat(logged.list).hasSize(3);
    assertThat(logged.list.get(2).getFormattedMessage()).isEqualTo("quiet since");
  }
}
