package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.Reply;
import dev.sluice.loadtest.engine.Transport;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The figures of the two scenarios, from a tally fed by a scripted server. */
class TenantFiguresTest {

  private static final String FULL =
      "{\"type\":\"about:blank\",\"title\":\"Queue full\",\"status\":429,\"reason\":\"key_cap\"}";

  private long offset;

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void everyHostServedAlikeIsFairEvenWhenTheGreedyOneIsRefusedALot() {
    CallerTally tally = new CallerTally("X-Host-Id");
    Transport server = scripted();
    Transport counted = tally.wrap(server);
    for (int host = 1; host <= 32; host++) {
      for (int job = 0; job < 10; job++) {
        counted.send(job(GreedyHostTraffic.host(host), 200, 100 + job));
      }
    }
    for (int i = 0; i < 50; i++) {
      counted.send(job(GreedyHostTraffic.GREEDY_HOST, 429, 0)); // 10x demand, refused
    }
    counted.send(job(GreedyHostTraffic.RESCUE_HOST, 200, 40));

    GreedyHostFigures f = GreedyHostFigures.of("fair", List.of(), run(), tally);

    assertThat(f.jainIndex()).isEqualTo(1.0);
    assertThat(f.jainIndexServed()).isEqualTo(1.0);
    assertThat(f.politeBelow90()).isZero();
    assertThat(f.politeMinShareOfFair()).isEqualTo(1.0);
    assertThat(f.hosts()).hasSize(32);
    GreedyHostFigures.Host greedy = f.hosts().get(GreedyHostTraffic.GREEDY_HOST);
    assertThat(greedy.greedy()).isTrue();
    assertThat(greedy.requests()).isEqualTo(60);
    assertThat(greedy.tries429()).isEqualTo(50);
    assertThat(f.greedy429Tries()).isEqualTo(50);
    assertThat(f.politeQueueWaitMillis().count()).isEqualTo(310);
    assertThat(f.politeQueueWaitMillis().p50()).isCloseTo(104, within(1.0));
    assertThat(f.rescue().served()).isEqualTo(1);
    assertThat(f.rescue().queueWaitMillis().max()).isCloseTo(40, within(0.1));
    assertThat(f.targetMet()).isTrue();
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void aGreedyHostServedTenTimesAsMuchFailsTheTargets() {
    CallerTally tally = new CallerTally("X-Host-Id");
    Transport counted = tally.wrap(scripted());
    for (int host = 2; host <= 32; host++) {
      counted.send(job(GreedyHostTraffic.host(host), 200, 3000));
      for (int refused = 0; refused < 9; refused++) {
        counted.send(job(GreedyHostTraffic.host(host), 429, 0));
      }
    }
    for (int i = 0; i < 10; i++) {
      counted.send(job(GreedyHostTraffic.GREEDY_HOST, 200, 3000));
    }

    GreedyHostFigures f = GreedyHostFigures.of("fifo", List.of(), run(), tally);

    // 41 served among 32 hosts that each asked for 10: fair share 41/32 each
    assertThat(f.hosts().get(GreedyHostTraffic.host(2)).fairShare())
        .isCloseTo(41 / 32.0, within(1e-9));
    assertThat(f.jainIndex()).isCloseTo(1681.0 / 4192, within(1e-9));
    assertThat(f.politeBelow90()).isEqualTo(31);
    assertThat(f.politeMinShareOfFair()).isCloseTo(32 / 41.0, within(1e-9));
    assertThat(f.targetMet()).isFalse();
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void aVariantTheServiceIgnoredNeverMeetsItsTarget() {
    CallerTally tally = new CallerTally("X-Host-Id");
    Transport counted = tally.wrap(scripted());
    for (int host = 1; host <= 32; host++) {
      counted.send(job(GreedyHostTraffic.host(host), 200, 10));
    }
    assertThat(
            GreedyHostFigures.of("fair", List.of("sluice.limiters.transcode.queue"), run(), tally)
                .targetMet())
        .isFalse();
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void priorityTargetIsMetOnlyWhenNoCriticalTryFailsAndSomeSheddableAreShed() {
    CallerTally tally = new CallerTally("X-Host-Id");
    Transport counted = tally.wrap(scripted());
    for (int i = 0; i < 5; i++) {
      counted.send(job(GreedyHostTraffic.RESCUE_HOST, 200, 30 + i));
      counted.send(job("batch-host-01", 200, 900));
      counted.send(job("batch-host-02", 429, 0));
    }
    PriorityFigures met = PriorityFigures.of("classes", List.of(), run(), tally);
    assertThat(met.critical().served()).isEqualTo(5);
    assertThat(met.critical().tries429()).isZero();
    assertThat(met.sheddable().shed()).isEqualTo(5);
    assertThat(met.sheddable().reasons()).containsEntry("429 key_cap", 5L);
    assertThat(met.criticalWaitPerServiceTime()).isCloseTo(34 / 50.0, within(0.01));
    assertThat(met.targetMet()).isTrue();

    counted.send(job(GreedyHostTraffic.RESCUE_HOST, 429, 0));
    PriorityFigures missed = PriorityFigures.of("fifo", List.of(), run(), tally);
    assertThat(missed.critical().tries429()).isEqualTo(1);
    assertThat(missed.targetMet()).isFalse();
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void theReportSectionShowsTheFiguresAndThePerHostChart() {
    CallerTally tally = new CallerTally("X-Host-Id");
    Transport counted = tally.wrap(scripted());
    for (int host = 1; host <= 32; host++) {
      counted.send(job(GreedyHostTraffic.host(host), 200, 10));
    }
    GreedyHostFigures f = GreedyHostFigures.of("fair", List.of(), run(), tally);
    GreedyHostFigures other = GreedyHostFigures.of("fifo", List.of(), run(), tally);
    List<Block> section = TenantReport.section(List.of(f, other));
    String html = HtmlRenderer.render(new Report("greedy-host", section, Map.of()));
    assertThat(html).contains("Jain&#39;s index").contains("<svg").contains("target met");
    Block.Table table = (Block.Table) ((Block.Section) section.get(0)).blocks().get(1);
    assertThat(table.lines())
        .contains(
            "Jain's index (served / fair share), fair 1.000, fifo 1.000",
            "target met, fair yes, fifo yes");
  }

  /** A request of a caller that the scripted server answers with a status (and queue wait). */
  private Arrival job(String host, int status, int queuedMillis) {
    return new Arrival(
        offset++, "s", "POST", status + "/" + queuedMillis, Map.of("X-Host-Id", host));
  }

  private static Transport scripted() {
    return a -> {
      String[] parts = a.path().split("/");
      int status = Integer.parseInt(parts[0]);
      String body = status == 200
          ? String.format(
              "{\"jobId\":\"x\",\"queuedMillis\":%d,\"serviceMillis\":50}",
              Integer.parseInt(parts[1]))
          : FULL;
      return CompletableFuture.completedFuture(new Reply(status, Optional.empty(), body));
    };
  }

  private static RunSummary run() {
    return new RunSummary(
        "x",
        "greedy-host",
        "http://x/",
        1,
        1,
        1,
        50,
        2,
        50.0,
        new Accounting(Map.of(), Map.of(), 0, 0, 0, Map.of(), 0),
        Map.of(),
        Map.of(),
        Map.of(),
        new RunSummary.Cpu(0, 0, 0),
        List.of(),
        Map.of());
  }
}
