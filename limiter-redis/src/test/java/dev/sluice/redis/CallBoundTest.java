package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long one call may take: the connect timeout while the node starts, then the decision's. */
class CallBoundTest {

  private static final long DECISION = Duration.ofMillis(50).toNanos();
  private static final long CONNECT = Duration.ofSeconds(1).toNanos();

  private final VirtualTime time = new VirtualTime();

  private CallBound bound(Duration timeout, Duration connectTimeout) {
    return new CallBound(
        new StoreSettings(
            URI.create("redis://127.0.0.1:6379"),
            timeout,
            3,
            FailurePolicy.LOCAL,
            time,
            connectTimeout),
        time);
  }

  private final CallBound bound = bound(Duration.ofMillis(50), Duration.ofSeconds(1));

  @Test
  void aStartingNodeMayWaitAsLongAsAConnect() {
    assertThat(bound.nanos()).isEqualTo(CONNECT);
    assertThat(bound.decisionNanos()).isEqualTo(DECISION);
  }

  @Test
  void theAllowanceIsNeverShorterThanTheDecisionTimeout() {
    CallBound slow = bound(Duration.ofSeconds(2), Duration.ofMillis(100));

    assertThat(slow.nanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
  }

  @Test
  void theAllowanceRunsFromTheFirstDecisionNotFromOpening() {
    time.advance(Duration.ofMinutes(1));
    assertThat(bound.nanos()).isEqualTo(CONNECT);

    bound.deciding();
    time.advance(CallBound.START_ALLOWANCE.minusNanos(1));
    bound.deciding(); // a later decision does not move the start
    assertThat(bound.nanos()).isEqualTo(CONNECT);

    time.advanceNanos(1);
    assertThat(bound.nanos()).isEqualTo(DECISION);
    // and it stays ended
    assertThat(bound.nanos()).isEqualTo(DECISION);
  }

  @Test
  void enoughAnswersInTimeEndTheAllowance() {
    bound.deciding();
    for (int i = 0; i < CallBound.WARM_ANSWERS - 1; i++) {
      bound.answered(DECISION);
    }
    assertThat(bound.nanos()).isEqualTo(CONNECT);

    bound.answered(DECISION);

    assertThat(bound.nanos()).isEqualTo(DECISION);
  }

  @Test
  void lateAnswersDoNotCountAsWarm() {
    for (int i = 0; i < CallBound.WARM_ANSWERS; i++) {
      bound.answered(DECISION + 1);
    }

    assertThat(bound.nanos()).isEqualTo(CONNECT);
  }

  @Test
  void aNodeCanBeMarkedStarted() {
    bound.started();

    assertThat(bound.nanos()).isEqualTo(DECISION);
  }
}
