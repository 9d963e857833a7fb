package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The service's HTTP contract, on a free port with a real client. */
@Tag("integration")
class TranscodeServiceHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static TranscodeService service;

  @BeforeAll
  static void start() {
    service = TranscodeService.start(
        DemoSettings.load(new String[0], Map.of(), Map.of("server.port", "0"), 2));
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  private static HttpResponse<String> send(String method, String path, String... headers)
      throws Exception {
    return new DemoClient(service.port()).send(method, path, headers);
  }

  @Test
  void transcodeDoesTheJobAndSaysHowLongItWaitedAndWorked() throws Exception {
    HttpResponse<String> response = send("POST", "/api/transcode?cpuMillis=20");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode job = JSON.readTree(response.body());
    assertThat(job.get("jobId").asText()).startsWith("transcode-");
    assertThat(job.get("cpuMillis").asInt()).isEqualTo(20);
    assertThat(job.get("frames").asInt()).isPositive();
    assertThat(job.get("compressedBytes").asLong()).isPositive();
    assertThat(job.get("serviceMillis").asDouble()).isPositive();
    assertThat(job.get("queuedMillis").asDouble()).isGreaterThanOrEqualTo(0);
    // the work's own CPU, on the thread clock: some, and not more than the wall time it took; -1
    // on a virtual thread (Java 21 and later run the handlers on them), which has no CPU clock
    double cpuUsed = job.get("cpuUsedMillis").asDouble();
    if (Runtime.version().feature() < 21 || cpuUsed != -1) {
      assertThat(cpuUsed)
          .isPositive()
          .isLessThanOrEqualTo(job.get("serviceMillis").asDouble() + 1);
    }
    assertThat(JSON.readTree(send("POST", "/api/rescue?cpuMillis=5").body())
            .get("jobId")
            .asText())
        .startsWith("rescue-");
  }

  @Test
  void aBadCpuMillisIsA400ProblemNamingTheParameterAndValue() throws Exception {
    for (String bad : new String[] {"0", "abc", "10001", "-1"}) {
      HttpResponse<String> response = send("POST", "/api/transcode?cpuMillis=" + bad);
      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(response.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      JsonNode problem = JSON.readTree(response.body());
      assertThat(problem.get("status").asInt()).isEqualTo(400);
      assertThat(problem.get("detail").asText()).contains("cpuMillis").contains("'" + bad + "'");
    }
    assertThat(send("POST", "/api/rescue").statusCode()).isEqualTo(400);
  }

  @Test
  void aJobWithWaitMillisWaitsThatLongBesideItsCpuWork() throws Exception {
    HttpResponse<String> response = send("POST", "/api/transcode?cpuMillis=5&waitMillis=300");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode job = JSON.readTree(response.body());
    assertThat(job.get("cpuMillis").asInt()).isEqualTo(5);
    assertThat(job.get("waitMillis").asInt()).isEqualTo(300);
    assertThat(job.get("serviceMillis").asDouble()).isGreaterThanOrEqualTo(300);
    assertThat(JSON.readTree(send("POST", "/api/transcode?cpuMillis=5").body())
            .get("waitMillis")
            .asInt())
        .isZero();
    HttpResponse<String> rescue = send("POST", "/api/rescue?cpuMillis=5&waitMillis=50");
    assertThat(JSON.readTree(rescue.body()).get("waitMillis").asInt()).isEqualTo(50);
  }

  @Test
  void aBadWaitMillisIsA400ProblemNamingTheParameterAndValue() throws Exception {
    for (String bad : new String[] {"-1", "later", "60001", "1.5"}) {
      for (String endpoint : new String[] {"/api/transcode", "/api/rescue"}) {
        HttpResponse<String> response = send("POST", endpoint + "?cpuMillis=5&waitMillis=" + bad);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow())
            .startsWith("application/problem+json");
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("parameter").asText()).isEqualTo("waitMillis");
        assertThat(problem.get("detail").asText()).contains("waitMillis").contains("'" + bad + "'");
      }
    }
  }

  @Test
  void historyHealthAndMetricsAnswer() throws Exception {
    HttpResponse<String> history = send("GET", "/api/history/42", "X-Account-Id", "viewer-1");
    assertThat(history.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(history.body()).get("account").asText()).isEqualTo("viewer-1");
    assertThat(send("GET", "/health").statusCode()).isEqualTo(200);
    HttpResponse<String> metrics = send("GET", "/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("process_cpu_usage").contains("system_cpu_count");
  }
}
