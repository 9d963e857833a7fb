package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerWindowsTest {

  private static final long S = 1_000_000_000L;
  private static final long LIMIT = 100;
  private static final String KEY = "loadtest_window_shared_";

  private static String line(long window, long admitted, long refused) {
    return window + " 1 " + admitted + " " + refused + " " + KEY;
  }

  @Test
  void windowsWhoseReplicasAdmittedTheLimitBetweenThemAreExact() {
    List<String> first = List.of(line(10, 40, 7), line(11, 55, 3), line(12, 61, 0));
    List<String> second = List.of(line(10, 60, 2), line(11, 45, 9), line(12, 39, 4));

    ServerWindows.Result result =
        ServerWindows.judge(List.of(first, second), KEY, LIMIT, 9 * S + S / 2, 13 * S + S / 3);

    assertThat(result.judged())
        .extracting(ServerWindows.Window::epochSecond)
        .containsExactly(10L, 11L, 12L);
    assertThat(result.judged().get(0).admittedByReplica()).containsExactly(40L, 60L);
    assertThat(result.met()).isTrue();
  }

  @Test
  void aWindowShortOfTheLimitUnderFullPressureIsNotExact() {
    List<String> first = List.of(line(10, 40, 7), line(11, 50, 3));
    List<String> second = List.of(line(10, 60, 2), line(11, 46, 9));

    ServerWindows.Result result =
        ServerWindows.judge(List.of(first, second), KEY, LIMIT, 9 * S + S / 2, 12 * S + S / 2);

    assertThat(result.exact()).isEqualTo(1);
    assertThat(result.judged().get(1).admitted()).isEqualTo(96);
    assertThat(result.met()).isFalse();
  }

  @Test
  void aWindowAboveTheLimitIsNotExact() {
    ServerWindows.Result result = ServerWindows.judge(
        List.of(List.of(line(10, 51, 1)), List.of(line(10, 50, 1))),
        KEY,
        LIMIT,
        9 * S + S / 2,
        11 * S + S / 2);

    assertThat(result.judged())
        .singleElement()
        .satisfies(w -> assertThat(w.exact(LIMIT)).isFalse());
    assertThat(result.met()).isFalse();
  }

  @Test
  void linesOfOneWindowAreSummedAndLateLinesCount() {
    // a decision that completed after its window was written adds a second line for it
    List<String> first = List.of(line(10, 30, 1), line(10, 10, 0));
    List<String> second = List.of(line(10, 60, 0));

    ServerWindows.Result result =
        ServerWindows.judge(List.of(first, second), KEY, LIMIT, 9 * S + S / 2, 11 * S + S / 2);

    assertThat(result.judged()).singleElement().satisfies(w -> {
      assertThat(w.admittedByReplica()).containsExactly(40L, 60L);
      assertThat(w.refused()).isEqualTo(1);
    });
    assertThat(result.met()).isTrue();
  }

  @Test
  void windowsNeverRefusedInOrNotWhollyInsideTheRunAreNotJudged() {
    List<String> first = List.of(
        line(9, 100, 5), // begins before the run
        line(10, 20, 0), // never refused in: not under full pressure
        line(11, 100, 3),
        line(12, 100, 8)); // ends after the run
    ServerWindows.Result result =
        ServerWindows.judge(List.of(first), KEY, LIMIT, 9 * S + S / 2, 12 * S + S / 2);

    assertThat(result.judged()).extracting(ServerWindows.Window::epochSecond).containsExactly(11L);
    assertThat(result.unreached()).isEqualTo(1);
  }

  @Test
  void otherCountersAndUnitsAreLeftOut() {
    List<String> first = List.of(
        line(10, 100, 1),
        "10 1 7 1 loadtest_user_u1_",
        "0 60 40 1 " + KEY,
        "a line that is not one");

    ServerWindows.Result result =
        ServerWindows.judge(List.of(first), KEY, LIMIT, 9 * S + S / 2, 11 * S + S / 2);

    assertThat(result.judged())
        .singleElement()
        .satisfies(w -> assertThat(w.admitted()).isEqualTo(100));
  }

  @Test
  void noJudgedWindowIsNotMet() {
    ServerWindows.Result result =
        ServerWindows.judge(List.of(List.of(), List.of()), KEY, LIMIT, 9 * S, 12 * S);

    assertThat(result.judged()).isEmpty();
    assertThat(result.unreached()).isEqualTo(2);
    assertThat(result.met()).isFalse();
  }
}
