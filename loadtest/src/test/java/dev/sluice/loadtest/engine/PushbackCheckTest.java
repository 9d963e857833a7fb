package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.engine.PushbackCheck.Attempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Recorded attempts judged against their pushback; times on a clock near where nanoTime wraps. */
class PushbackCheckTest {

  private static final long T0 = Long.MAX_VALUE - 1_500_000_000L;
  private static final long MS = 1_000_000L;

  private static Attempt attempt(
      long call, int number, long startMs, long closeMs, String status, long pushback) {
    return new Attempt(
        call, number, T0 + startMs * MS, T0 + closeMs * MS, status, pushback, false, true);
  }

  @Test
  void retriesThatWaitedOutThePushbackHonourIt() {
    PushbackCheck check = PushbackCheck.of(List.of(
        attempt(1, 0, 0, 5, "RESOURCE_EXHAUSTED", 1000),
        attempt(1, 1, 1007, 1010, "RESOURCE_EXHAUSTED", 1000),
        attempt(1, 2, 2012, 2420, "OK", -1),
        attempt(2, 0, 100, 500, "OK", -1)));

    assertThat(check.calls()).isEqualTo(2);
    assertThat(check.attempts()).isEqualTo(4);
    assertThat(check.afterPushback()).isEqualTo(2);
    assertThat(check.minSlackMillis()).isEqualTo(2.0);
    assertThat(check.violationCount()).isZero();
    assertThat(check.violations()).isEmpty();
    assertThat(check.honoured()).isTrue();
    assertThat(check.finalStatuses()).isEqualTo(Map.of("OK", 2));
  }

  @Test
  void aRetryThatStartedBeforeThePushbackRanOutIsAViolation() {
    PushbackCheck check = PushbackCheck.of(List.of(
        attempt(7, 0, 0, 10, "RESOURCE_EXHAUSTED", 1000),
        attempt(7, 1, 210, 220, "RESOURCE_EXHAUSTED", 2000),
        attempt(7, 2, 2220, 2230, "RESOURCE_EXHAUSTED", 1000)));

    assertThat(check.afterPushback()).isEqualTo(2);
    assertThat(check.violationCount()).isEqualTo(1);
    assertThat(check.minSlackMillis()).isEqualTo(-800.0);
    assertThat(check.violations())
        .containsExactly("call 7 attempt 2 started 200.0 ms after attempt 1 closed"
            + " RESOURCE_EXHAUSTED with a pushback of 1000 ms");
    assertThat(check.honoured()).isFalse();
    assertThat(check.finalStatuses()).isEqualTo(Map.of("RESOURCE_EXHAUSTED", 1));
  }

  @Test
  void attemptsAreOrderedByTheirStartWhateverOrderTheyWereRecordedIn() {
    // the tracer records an attempt when it closes; a call's attempts may arrive out of order
    PushbackCheck check = PushbackCheck.of(new ArrayList<>(List.of(
        attempt(3, 1, 1500, 1600, "OK", -1), attempt(3, 0, 0, 400, "RESOURCE_EXHAUSTED", 1000))));

    assertThat(check.afterPushback()).isEqualTo(1);
    assertThat(check.minSlackMillis()).isEqualTo(100.0);
    assertThat(check.finalStatuses()).isEqualTo(Map.of("OK", 1));
  }

  @Test
  void onlyRetriesAfterAPushbackAreCheckedAndTransparentOrUnsentOnesNever() {
    PushbackCheck check = PushbackCheck.of(List.of(
        // a retry after an attempt without a pushback waits the policy's backoff: not judged
        attempt(4, 0, 0, 10, "RESOURCE_EXHAUSTED", -1),
        attempt(4, 1, 60, 70, "OK", -1),
        // a transparent retry never reached the service: grpc-java sends it at once
        attempt(5, 0, 0, 10, "RESOURCE_EXHAUSTED", 1000),
        new Attempt(5, 1, T0 + 11 * MS, T0 + 20 * MS, "OK", -1, true, true),
        // a retry cancelled in its pushback never started
        attempt(6, 0, 0, 10, "RESOURCE_EXHAUSTED", 1000),
        new Attempt(6, 1, T0 + 12 * MS, T0 + 12 * MS, "CANCELLED", -1, false, false)));

    assertThat(check.afterPushback()).isZero();
    assertThat(check.minSlackMillis()).isNaN();
    assertThat(check.violationCount()).isZero();
    // nothing checked is not honoured: the check says nothing
    assertThat(check.honoured()).isFalse();
  }

  @Test
  void violationsBeyondTheListedOnesAreCounted() {
    List<Attempt> attempts = new ArrayList<>();
    for (int call = 0; call < PushbackCheck.LISTED_VIOLATIONS + 3; call++) {
      attempts.add(attempt(call, 0, 0, 10, "RESOURCE_EXHAUSTED", 1000));
      attempts.add(attempt(call, 1, 20, 30, "OK", -1));
    }

    PushbackCheck check = PushbackCheck.of(attempts);

    assertThat(check.violationCount()).isEqualTo(PushbackCheck.LISTED_VIOLATIONS + 3);
    assertThat(check.violations()).hasSize(PushbackCheck.LISTED_VIOLATIONS);
  }
}
