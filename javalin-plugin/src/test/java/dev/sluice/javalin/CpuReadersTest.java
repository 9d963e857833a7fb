package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The live page and two CPU limits in one JVM: the page shows the CPU the controller acts on
 * without reading the signal itself, and each limit reads the shared signal over its own interval,
 * so no reader shortens another's sample (the JDK's getCpuLoad measures since the last call by
 * anyone: a page polled every second once made the controller see a few milliseconds).
 */
class CpuReadersTest {

  /** 60% busy on virtual time; counts reads. */
  private static final class CountingCpu implements CpuSignal {
    final VirtualTime time;
    final AtomicInteger reads = new AtomicInteger();
    final long origin;

    CountingCpu(VirtualTime time) {
      this.time = time;
      this.origin = time.nanoTime();
    }

    @Override
    public Reading read() {
      reads.incrementAndGet();
      // from the signal's creation: only differences matter, and a small origin keeps 0.6 x now
      // exact to 1e-9 (a raw nanoTime near 2^63 loses microseconds in the double product)
      long now = time.nanoTime() - origin;
      return new Reading(0.6 * now, now);
    }
  }

  @Test
  void pollingThePageReadsNoCpuAndEachLimitSeesItsOwnFullInterval() {
    VirtualTime time = new VirtualTime();
    CountingCpu cpu = new CountingCpu(time);
    Map<String, String> props = Map.of(
        "sluice.dashboard.path",
        "/sluice/dashboard",
        "sluice.limiters.a.path",
        "/a",
        "sluice.limiters.a.limit",
        "cpu",
        "sluice.limiters.a.target-cpu",
        "0.6",
        "sluice.limiters.a.max-concurrency",
        "8",
        "sluice.limiters.b.path",
        "/b",
        "sluice.limiters.b.limit",
        "cpu",
        "sluice.limiters.b.target-cpu",
        "0.6",
        "sluice.limiters.b.max-concurrency",
        "8");
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time)
            .cpuSignal(cpu),
        (app, plugin) -> {
          app.routes.get("/a", ctx -> ctx.result("a"));
          app.routes.get("/b", ctx -> ctx.result("b"));
        })) {
      time.advance(Duration.ofSeconds(1)); // ten controller ticks of each limit
      int readsByControllers = cpu.reads.get();

      for (int i = 0; i < 20; i++) {
        assertThat(server.get("/sluice/dashboard/data").statusCode()).isEqualTo(200);
      }

      assertThat(cpu.reads.get()).isEqualTo(readsByControllers);
      // both limits measured 60% over their own 100 ms ticks, whoever else read the signal
      String status = server.plugin.statusJson();
      assertThat(status).contains("\"name\":\"a\"").contains("\"name\":\"b\"");
      assertThat(
              server.plugin.limiter("a").orElseThrow().snapshot().limitState().cpu())
          .isEqualTo(0.6, org.assertj.core.data.Offset.offset(1e-9));
      assertThat(
              server.plugin.limiter("b").orElseThrow().snapshot().limitState().cpu())
          .isEqualTo(0.6, org.assertj.core.data.Offset.offset(1e-9));
      assertThat(status).contains("\"now\":0.6");
    }
  }
}
