package dev.sluice.loadtest.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.sampling.PrometheusText;
import org.junit.jupiter.api.Test;

class SoakReadingTest {

  @Test
  void heapIsTheSumOfTheHeapPoolsOnly() {
    String metrics = """
        # TYPE jvm_memory_used_bytes gauge
        jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1048576.0
        jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 2097152.0
        jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.9E7
        jvm_threads_live_threads 38.0\
        """;

    assertThat(PrometheusText.heapUsedBytes(metrics)).isEqualTo(3 * 1024 * 1024);
    assertThat(SoakNode.metric(metrics, "jvm_threads_live_threads")).isEqualTo(38);
  }

  @Test
  void theTranscodeLimiterIsFoundInTheStatus() throws Exception {
    String status = "{\"limiters\":[{\"name\":\"rescue\",\"inFlight\":9},"
        + "{\"name\":\"transcode\",\"inFlight\":1,\"queued\":2,\"clusterLeases\":3}]}";

    var limiter = SoakNode.limiter(status);

    assertThat(limiter.path("inFlight").asInt()).isEqualTo(1);
    assertThat(limiter.path("clusterLeases").asInt()).isEqualTo(3);
    assertThat(SoakNode.limiter("{\"limiters\":[]}").isMissingNode()).isTrue();
  }

  @Test
  void anInfoFieldIsReadByName() {
    String info = "# Memory\r\nused_memory:1180000\r\nused_memory_human:1.13M\r\n";

    assertThat(SoakRedis.infoField(info, "used_memory")).isEqualTo(1_180_000);
    assertThat(SoakRedis.infoField(info, "maxmemory")).isEqualTo(-1);
  }

  @Test
  void bothNodesShareTheRedisAndTheGivenPropertiesComeLast() {
    var properties = SoakRun.nodeProperties(
        java.util.List.of("sluice.redis.timeout=200ms"),
        "redis://127.0.0.1:6390",
        java.nio.file.Path.of("rules.yaml"));

    assertThat(properties)
        .contains(
            "sluice.redis.uri=redis://127.0.0.1:6390",
            "sluice.limiters.transcode.scope=global",
            "sluice.redis.expected-nodes=2");
    assertThat(properties.get(properties.size() - 1)).isEqualTo("sluice.redis.timeout=200ms");
  }
}
