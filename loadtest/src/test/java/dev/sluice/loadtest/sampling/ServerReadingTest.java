package dev.sluice.loadtest.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerReadingTest {

  private static final String METRICS = """
      # HELP process_cpu_usage The "recent cpu usage" for the Java Virtual Machine process
      # TYPE process_cpu_usage gauge
      process_cpu_usage 0.6843
      process_cpu_usage_extra 0.99
      # TYPE system_cpu_count gauge
      system_cpu_count 2.0
      system_cpu_usage{host="a b"} 0.912 1712345678000
      system_load_average_1m -1.0
      jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.2E7\
      """;

  @Test
  void readsCpuGaugesWithOrWithoutLabelsAndTimestamps() {
    assertThat(PrometheusText.value(METRICS, "process_cpu_usage")).hasValue(0.6843);
    assertThat(PrometheusText.value(METRICS, "system_cpu_usage")).hasValue(0.912);
    assertThat(PrometheusText.value(METRICS, "system_cpu_count")).hasValue(2.0);
    assertThat(PrometheusText.value(METRICS, "jvm_memory_used_bytes")).hasValue(1.2e7);
  }

  @Test
  void absentNegativeOrNanValuesAreUnknown() {
    assertThat(PrometheusText.value(METRICS, "process_cpu")).isEmpty();
    assertThat(PrometheusText.value(METRICS, "system_load_average_1m")).isEmpty();
    assertThat(PrometheusText.value("process_cpu_usage NaN\n", "process_cpu_usage"))
        .isEmpty();
    assertThat(PrometheusText.value("process_cpu_usage oops\n", "process_cpu_usage"))
        .isEmpty();
  }

  @Test
  void findsLimitersAnywhereInTheSluiceSnapshot() {
    String body =
        "{\"enabled\":true,\"limiters\":{\"transcode\":{\"limit\":1,\"inFlight\":1,\"queued\":7},"
            + "\"rescue\":{\"name\":\"rescue\",\"limit\":1,\"inFlight\":0,\"queued\":0}},"
            + "\"rules\":[{\"id\":\"history-per-account\",\"limit\":10}]}";
    assertThat(SluiceSnapshot.limiters(body))
        .isEqualTo(Map.of(
            "transcode", new ServerSample.LimiterLoad(1, 7, 1),
            "rescue", new ServerSample.LimiterLoad(0, 0, 1)));
    assertThat(SluiceSnapshot.limiters("[{\"name\":\"x\",\"inFlight\":2,\"queued\":3}]"))
        .isEqualTo(Map.of("x", new ServerSample.LimiterLoad(2, 3, -1)));
    assertThat(SluiceSnapshot.limiters("not json")).isEmpty();
    assertThat(SluiceSnapshot.limiters("{\"enabled\":false}")).isEmpty();
  }
}
