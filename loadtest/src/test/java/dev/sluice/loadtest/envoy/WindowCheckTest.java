package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowCheckTest {

  private static final long S = 1_000_000_000L;
  private static final long LIMIT = 3;

  /** One call sent at {@code sent} and answered at {@code answered} (seconds since the epoch). */
  private static RlsLoad.Decision call(double sent, double answered, boolean ok, long remaining) {
    return new RlsLoad.Decision((long) (sent * S), (long) (answered * S), ok, remaining);
  }

  /** A window of second {@code w}: its limit admitted at its start, then a refusal. */
  private static List<RlsLoad.Decision> full(long w) {
    List<RlsLoad.Decision> calls = new ArrayList<>();
    for (int i = 0; i < LIMIT; i++) {
      calls.add(call(w + 0.1 + i * 0.01, w + 0.105 + i * 0.01, true, LIMIT - 1 - i));
    }
    calls.add(call(w + 0.5, w + 0.505, false, 0));
    return calls;
  }

  @Test
  void windowsThatAdmittedExactlyTheLimitAreExact() {
    List<RlsLoad.Decision> calls = new ArrayList<>();
    for (long w = 10; w <= 14; w++) {
      calls.addAll(full(w));
    }

    WindowCheck.Result result = WindowCheck.judge(calls, LIMIT, 10 * S + S / 2, 14 * S + S / 2);

    assertThat(result.judged())
        .extracting(WindowCheck.Window::epochSecond)
        .containsExactly(11L, 12L, 13L);
    assertThat(result.met()).isTrue();
  }

  @Test
  void anAdmissionStraddlingAnEdgeIsPlacedInTheWindowMissingItsValue() {
    List<RlsLoad.Decision> calls = new ArrayList<>(full(11));
    calls.addAll(full(13));
    // window 12: its first admission (value 2) sent in 11 and answered in 12, the rest inside 12
    calls.add(call(11.999, 12.002, true, 2));
    calls.add(call(12.1, 12.11, true, 1));
    calls.add(call(12.2, 12.21, true, 0));
    calls.add(call(12.5, 12.51, false, 0));

    WindowCheck.Result result = WindowCheck.judge(calls, LIMIT, 10 * S + S / 2, 14 * S);

    assertThat(result.judged()).extracting(WindowCheck.Window::admitted).containsExactly(3, 3, 3);
    assertThat(result.met()).isTrue();
  }

  @Test
  void aLateDecisionOnANewCountIsAnExcessWhicheverWindowItIsPlacedIn() {
    List<RlsLoad.Decision> calls = new ArrayList<>(full(11));
    calls.addAll(full(12));
    // decided for window 11 after its counter was gone: a fresh count's first value again
    calls.add(call(11.999, 12.003, true, LIMIT - 1));

    WindowCheck.Result result = WindowCheck.judge(calls, LIMIT, 10 * S + S / 2, 13 * S + S / 2);

    assertThat(result.met()).isFalse();
    assertThat(result.judged())
        .anySatisfy(w -> assertThat(w.duplicates()).isEqualTo(1))
        .anySatisfy(w -> assertThat(w.admitted()).isEqualTo(4));
  }

  @Test
  void aWindowThatNeverRefusedIsNotJudged() {
    List<RlsLoad.Decision> calls = new ArrayList<>(full(11));
    calls.add(call(12.1, 12.11, true, LIMIT - 1));

    WindowCheck.Result result = WindowCheck.judge(calls, LIMIT, 10 * S + S / 2, 13 * S + S / 2);

    assertThat(result.judged()).hasSize(1);
    assertThat(result.unreached()).isEqualTo(1);
    assertThat(result.met()).isTrue();
  }

  @Test
  void fewerThanTheLimitInARefusingWindowIsNotExact() {
    List<RlsLoad.Decision> calls = new ArrayList<>(full(11).subList(1, 4));

    WindowCheck.Result result = WindowCheck.judge(calls, LIMIT, 10 * S + S / 2, 12 * S + S / 2);

    assertThat(result.judged())
        .singleElement()
        .extracting(WindowCheck.Window::admitted)
        .isEqualTo(2);
    assertThat(result.met()).isFalse();
  }
}
