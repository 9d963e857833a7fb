package dev.sluice.loadtest.sampling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads in-flight and queued counts out of the service's {@code /sluice} JSON. The loadtest knows
 * nothing of Sluice's classes, so it looks for any object with numeric {@code inFlight} and
 * {@code queued} fields and names it by its {@code name} field or, failing that, its key.
 */
final class SluiceSnapshot {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SluiceSnapshot() {}

  /** Empty when the body is not JSON or the service has no limiters (e.g. Sluice disabled). */
  static Map<String, ServerSample.LimiterLoad> limiters(String body) {
    Map<String, ServerSample.LimiterLoad> found = new TreeMap<>();
    try {
      collect(JSON.readTree(body), "limiter", found);
    } catch (Exception notJson) {
      // nothing to chart for this second
    }
    return found;
  }

  private static void collect(
      JsonNode node, String key, Map<String, ServerSample.LimiterLoad> found) {
    if (node == null) {
      return;
    }
    if (node.isObject()) {
      if (node.path("inFlight").isNumber() && node.path("queued").isNumber()) {
        String name = node.path("name").isTextual() ? node.get("name").asText() : key;
        found.put(
            name,
            new ServerSample.LimiterLoad(
                node.get("inFlight").asInt(),
                node.get("queued").asInt(),
                node.path("limit").asInt(-1)));
        return;
      }
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        collect(field.getValue(), field.getKey(), found);
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        collect(element, key, found);
      }
    }
  }
}
