package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OverloadVariantTest {

  private static final String T = "sluice.limiters.transcode.";

  @Test
  void fifoIsTodaysCpuLimitWithTheDemosQueueSetToOneFifo() {
    OverloadVariant fifo = OverloadVariant.of("--variants", "fifo", JobKind.SHORT);

    assertThat(fifo.serverProperties())
        .containsExactly(
            T + "limit=cpu",
            T + "target-cpu=0.7",
            T + "cpu-source=process",
            T + "reject-early=true",
            T + "queue=fifo",
            T + "queue-key=",
            T + "max-queue-per-key=0",
            T + "priority-header=");
    assertThat(fifo.queueKind()).isEqualTo("fifo");
    assertThat(fifo.standing()).isFalse();
  }

  @Test
  void theStandingTargetIsOneServiceTimeOfTheShortestJobAtMost100ms() {
    assertThat(OverloadVariant.standingTarget(JobKind.SHORT)).isEqualTo(Duration.ofMillis(20));
    assertThat(OverloadVariant.standingTarget(JobKind.LONG)).isEqualTo(Duration.ofMillis(100));
    assertThat(OverloadVariant.standingTarget(JobKind.SIZES)).isEqualTo(Duration.ofMillis(20));
    assertThat(OverloadVariant.of("--variants", "standing", JobKind.LONG).serverProperties())
        .contains(T + "queue=fifo", T + "queue-delay-target=100ms");
  }

  @Test
  void aDeclaredCostsCeilingCountsUnitsOfTheCostliestJob() {
    OverloadVariant declared = OverloadVariant.of("--variants", "cost-declared", JobKind.SIZES);

    assertThat(declared.onMachine(JobKind.SIZES, 2).serverProperties())
        .contains(T + "cost=header:X-Cost", T + "max-concurrency=160"); // 8 x 2 cores x cost 10
    assertThat(declared.serverProperties()).noneMatch(p -> p.startsWith(T + "max-concurrency"));
    OverloadVariant fifo = OverloadVariant.of("--variants", "fifo", JobKind.SIZES);
    assertThat(fifo.onMachine(JobKind.SIZES, 2)).isEqualTo(fifo);
    // 50 and 800 ms jobs: costs 1 and 16, in units of the kind's own shortest job
    assertThat(declared.onMachine(JobKind.WIDE, 2).serverProperties())
        .contains(T + "max-concurrency=256");
  }

  @Test
  void eachRequestDeclaresItsCostInUnitsOfItsKindsShortestJob() {
    assertThat(JobKind.SIZES.cost(JobKind.Size.SHORT)).isEqualTo(1);
    assertThat(JobKind.SIZES.cost(JobKind.Size.LONG)).isEqualTo(10);
    assertThat(JobKind.WIDE.cost(JobKind.Size.SMALL)).isEqualTo(1);
    assertThat(JobKind.WIDE.cost(JobKind.Size.HUGE)).isEqualTo(16);
    assertThat(JobKind.LONG.costliest()).isEqualTo(1);
    assertThat(JobKind.WIDE.streams(t -> 4, 4))
        .extracting(s -> s.headers().apply(0).get("X-Cost"))
        .containsExactly("1", "16");
    assertThat(JobKind.WIDE.meanCpuMillis()).isEqualTo(425);
  }

  @Test
  void costsAreDeclaredByHeaderOrLearnedPerSizeKeyedQueue() {
    assertThat(OverloadVariant.of("--variants", "cost-declared", JobKind.SIZES).serverProperties())
        .contains(T + "queue=fifo", T + "cost=header:X-Cost");
    List<String> learned =
        OverloadVariant.of("--variants", "cost-learned", JobKind.SIZES).serverProperties();
    assertThat(learned)
        .contains(
            T + "limit=cpu",
            T + "queue=fair",
            T + "queue-key=header:X-Job-Size",
            T + "max-queue-per-key=0",
            T + "cost=learned");
    assertThat(learned).doesNotContain(T + "queue=fifo", T + "queue-key=");
    assertThat(OverloadVariant.of("--variants", "netflix-vegas", JobKind.SIZES).serverProperties())
        .containsExactly("demo.limiter-peer=netflix-vegas");
  }

  @Test
  void eachKindRunsItsDefaultsAndACostVariantOnlyOnMixedSizes() {
    assertThat(OverloadVariant.forKind("--variants", null, JobKind.SHORT))
        .extracting(OverloadVariant::name)
        .containsExactly("fifo", "standing", "netflix-gradient2");
    assertThat(OverloadVariant.forKind("--variants", null, JobKind.SIZES))
        .extracting(OverloadVariant::name)
        .containsExactly("fifo", "cost-declared", "cost-learned", "netflix-gradient2");
    assertThat(OverloadVariant.forKind("--variants", "cost-declared,standing", JobKind.LONG))
        .extracting(OverloadVariant::name)
        .containsExactly("standing");
  }

  @Test
  void requestsSayTheirSizeAndCostInUnitsOfTheShortJob() {
    var streams = JobKind.SIZES.streams(t -> 10, 10);

    assertThat(streams).extracting(s -> s.name()).containsExactly("short", "long");
    assertThat(streams.get(1).headers().apply(0))
        .containsEntry("X-Job-Size", "long")
        .containsEntry("X-Cost", "10")
        .containsEntry("X-Account-Id", "maintenance-host-01");
    assertThat(streams.get(1).path().apply(null)).isEqualTo("/api/transcode?cpuMillis=200");
    assertThat(streams.get(0).rate().applyAsDouble(3)).isEqualTo(5); // half the rate each
    assertThat(streams.get(0).peakRate()).isEqualTo(5);
    assertThat(JobKind.SHORT.streams(t -> 10, 10).get(0).rate().applyAsDouble(0))
        .isEqualTo(10);
  }

  @Test
  void aServiceNotRunningAsTheVariantIsNamedFromItsStatus() {
    OverloadVariant standing = OverloadVariant.of("--variants", "standing", JobKind.SHORT);
    OverloadVariant fifo = OverloadVariant.of("--variants", "fifo", JobKind.SHORT);
    String asStanding = "{\"limiters\":[{\"name\":\"transcode\",\"limitKind\":\"cpu\","
        + "\"queueKind\":\"fifo\",\"queueDelayTarget\":\"PT0.02S\"}]}";
    String asFifo = asStanding.replace("\"PT0.02S\"", "null");

    assertThat(standing.mismatch(asStanding)).isEmpty();
    assertThat(fifo.mismatch(asFifo)).isEmpty();
    assertThat(standing.mismatch(asFifo).orElseThrow()).contains("queueDelayTarget");
    assertThat(fifo.mismatch(asStanding).orElseThrow()).contains("queueDelayTarget");
    assertThat(fifo.mismatch(asFifo.replace("\"fifo\"", "\"fair\"")).orElseThrow())
        .contains("fair queue");
    assertThat(fifo.mismatch(asFifo.replace("\"cpu\"", "\"fixed\"")).orElseThrow())
        .contains("limit fixed");
    assertThat(OverloadVariant.of("--variants", "netflix-gradient2", JobKind.SHORT)
            .mismatch(asFifo)
            .orElseThrow())
        .contains("no limiter netflix-gradient2");
  }
}
