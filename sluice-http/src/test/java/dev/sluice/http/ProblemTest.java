package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProblemTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void writesTheFieldsOfRfc9457ThenTheExtensionsSortedNumbersAsNumbers() {
    String json = new Problem(
            "https://sluice.dev/problems/queue-full",
            "Queue full",
            429,
            "limiter 'work' has no queue place",
            Map.of("retryAfterSeconds", 3L, "limiter", "work", "reason", "queue_full", "limit", 10))
        .toJson();

    assertThat(json)
        .isEqualTo(
            "{\"type\":\"https://sluice.dev/problems/queue-full\","
                + "\"title\":\"Queue full\",\"status\":429,\"detail\":\"limiter 'work' has no queue place\","
                + "\"limit\":10,\"limiter\":\"work\",\"reason\":\"queue_full\",\"retryAfterSeconds\":3}");
  }

  @Test
  void textFromTheRequestOrTheConfigurationIsEscapedAndAnImpossibleNumberIsNull() throws Exception {
    String rule = "per \"key\"\n\\ </script>\u2028";
    JsonNode parsed = JSON.readTree(new Problem(
            "about:blank",
            "Too Many Requests",
            429,
            "rule " + rule,
            Map.of("rule", rule, "ratio", Double.NaN, "share", 0.5))
        .toJson());

    assertThat(parsed.get("rule").asText()).isEqualTo(rule);
    assertThat(parsed.get("detail").asText()).isEqualTo("rule " + rule);
    assertThat(parsed.get("ratio").isNull()).isTrue();
    assertThat(parsed.get("share").asDouble()).isEqualTo(0.5);
  }
}
