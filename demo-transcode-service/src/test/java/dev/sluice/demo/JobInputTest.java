package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JobInputTest {

  @Test
  void cpuMillisIsARequiredWholeNumberWithinTheBound() {
    assertThat(JobMillis.CPU.parse("250", 1000)).isEqualTo(250);
    assertThat(JobMillis.CPU.parse(" 1 ", 1000)).isEqualTo(1);
    for (String bad : new String[] {"0", "-5", "1001", "1.5", "abc", "", "99999999999"}) {
      assertThatThrownBy(() -> JobMillis.CPU.parse(bad, 1000))
          .isInstanceOf(BadRequest.class)
          .hasMessageContaining("cpuMillis")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThatThrownBy(() -> JobMillis.CPU.parse(null, 1000))
        .hasMessageContaining("cpuMillis is required");
  }

  @Test
  void waitMillisIsAnOptionalWholeNumberFromZeroWithinTheBound() {
    assertThat(JobMillis.WAIT.parse(null, 1000)).isZero();
    assertThat(JobMillis.WAIT.parse("0", 1000)).isZero();
    assertThat(JobMillis.WAIT.parse(" 250 ", 1000)).isEqualTo(250);
    for (String bad : new String[] {"-1", "1001", "2.5", "soon", "", " "}) {
      assertThatThrownBy(() -> JobMillis.WAIT.parse(bad, 1000))
          .isInstanceOf(BadRequest.class)
          .hasMessageContaining("waitMillis")
          .hasMessageContaining("[0, 1000]")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  void aJobCompressesFramesInProportionToItsCpuMillis() {
    FrameTranscoder transcoder = FrameTranscoder.withRate(0.5);
    assertThat(transcoder.framesFor(200)).isEqualTo(100);
    assertThat(transcoder.framesFor(1)).isEqualTo(1);
    long one = transcoder.compress(1, 0);
    long four = transcoder.compress(4, 0);
    assertThat(one).isPositive().isLessThan(FrameTranscoder.FRAME_BYTES);
    assertThat(four).isBetween(3 * one, 5 * one);
  }

  @Test
  void outcomesInTheLogSayWhatHappened() {
    assertThat(RequestLog.outcome(200, false)).isEqualTo("ok");
    assertThat(RequestLog.outcome(429, true)).isEqualTo("rejected");
    assertThat(RequestLog.outcome(504, false)).isEqualTo("queue-timeout");
    assertThat(RequestLog.outcome(400, false)).isEqualTo("bad-request");
    assertThat(RequestLog.outcome(422, false)).isEqualTo("bad-footage");
    assertThat(RequestLog.outcome(499, false)).isEqualTo("client-gone");
    assertThat(RequestLog.outcome(500, false)).isEqualTo("status-500");
  }
}
