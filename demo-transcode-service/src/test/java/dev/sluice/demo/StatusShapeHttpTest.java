package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.javalin.SluicePlugin;
import io.javalin.Javalin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The demo's {@code GET /sluice} is the plugin's status, one shape: the same top-level keys and the
 * same fields per limiter and rule as {@link SluicePlugin#statusJson()} of a plugin given the same
 * properties, so a reader of one (the load test, the live page) reads the other.
 */
@Tag("integration")
class StatusShapeHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Field names all the way down; every value that is not an object or an array is "value", and an
   * array of such values (the history's columns, as long as the points sampled so far) is "values".
   */
  private static Object shape(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> fields = new TreeMap<>();
      node.properties().forEach(f -> fields.put(f.getKey(), shape(f.getValue())));
      return fields;
    }
    if (node.isArray() && (node.isEmpty() || node.get(0).isValueNode())) {
      return "values";
    }
    if (node.isArray()) {
      List<Object> elements = new ArrayList<>();
      node.forEach(e -> elements.add(shape(e)));
      return elements;
    }
    return "value";
  }

  private static String pluginStatus(DemoSettings settings) {
    SluicePlugin plugin = new SluicePlugin(cfg -> cfg.properties(settings.sluiceProperties()));
    Javalin app = Javalin.create(config -> {
          config.startup.showJavalinBanner = false;
          config.registerPlugin(plugin);
        })
        .start(0);
    try {
      return plugin.statusJson();
    } finally {
      app.stop();
    }
  }

  @Test
  void sluiceOfTheDemoHasTheShapeOfThePluginsStatus() throws Exception {
    DemoSettings settings =
        DemoSettings.load(new String[0], Map.of(), Map.of("server.port", "0"), 2);
    JsonNode plugin = JSON.readTree(pluginStatus(settings));
    try (TranscodeService service = TranscodeService.start(settings)) {
      JsonNode demo =
          JSON.readTree(new DemoClient(service.port()).send("GET", "/sluice").body());

      assertThat(demo.fieldNames())
          .toIterable()
          .containsExactly("time", "enabled", "limiters", "rules", "store", "cpu", "history");
      assertThat(shape(demo)).isEqualTo(shape(plugin));
      // what the plugin's status has and the demo's own JSON had not, and the other way round
      JsonNode transcode = demo.get("limiters").get(1);
      assertThat(transcode.get("name").asText()).isEqualTo("transcode");
      assertThat(transcode.fieldNames())
          .toIterable()
          .contains(
              "limitKind",
              "queueKind",
              "maxConcurrency",
              "rejected",
              "queueWaitP99Millis",
              "cpu",
              "limitSource",
              "waiting",
              "clusterLeases",
              "serviceMaxMillis");
      assertThat(transcode.get("rejected").fieldNames())
          .toIterable()
          .containsExactly(
              "queueFull",
              "queueTimeout",
              "cancelled",
              "shutdown",
              "late",
              "keyCap",
              "predictedWait",
              "standingQueue",
              "displaced");
    }
  }

  @Test
  void disabledSluiceAnswersTheSameTopLevelKeys() throws Exception {
    DemoSettings settings = DemoSettings.load(
        new String[0], Map.of(), Map.of("server.port", "0", "sluice.enabled", "false"), 2);
    try (TranscodeService service = TranscodeService.start(settings)) {
      JsonNode demo =
          JSON.readTree(new DemoClient(service.port()).send("GET", "/sluice").body());
      assertThat(shape(demo)).isEqualTo(shape(JSON.readTree(pluginStatus(settings))));
      assertThat(demo.fieldNames())
          .toIterable()
          .containsExactly("time", "enabled", "limiters", "rules", "store", "cpu", "history");
      assertThat(demo.get("enabled").asBoolean()).isFalse();
    }
  }
}
