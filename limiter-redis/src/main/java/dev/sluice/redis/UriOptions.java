package dev.sluice.redis;

import dev.sluice.time.DurationText;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sluice's own query parameters on {@code sluice.redis.uri}, taken off before Lettuce reads the rest:
 *
 * <ul>
 *   <li>{@code cluster=true}: the URI is a seed of a Redis Cluster;
 *   <li>{@code batch=N}: batched mode, each node takes N permits per round trip (N >= 2);
 *   <li>{@code batch-sync=1s}: how long unused batched permits stay on a node before they are given
 *       back (default 1s; {@code 500ms}, {@code 2s}, {@code PT1S}).
 * </ul>
 *
 * @param lettuceUri the URI without these parameters
 */
record UriOptions(String lettuceUri, boolean cluster, int batch, Duration batchSync) {

  static final Duration DEFAULT_BATCH_SYNC = Duration.ofSeconds(1);

  static UriOptions parse(URI uri) {
    String text = uri.toString();
    String query = uri.getRawQuery();
    if (query == null) {
      return new UriOptions(text, false, 0, DEFAULT_BATCH_SYNC);
    }
    boolean cluster = false;
    int batch = 0;
    Duration batchSync = DEFAULT_BATCH_SYNC;
    List<String> rest = new ArrayList<>();
    for (String parameter : query.split("&")) {
      int eq = parameter.indexOf('=');
      String name = (eq < 0 ? parameter : parameter.substring(0, eq)).toLowerCase(Locale.ROOT);
      String value = eq < 0 ? "" : parameter.substring(eq + 1);
      switch (name) {
        case "cluster" -> cluster = parseBoolean(value);
        case "batch" -> batch = parseBatch(value);
        case "batch-sync" -> batchSync = parseDuration(value);
        default -> rest.add(parameter);
      }
    }
    String base = text.substring(0, text.indexOf('?'));
    return new UriOptions(
        rest.isEmpty() ? base : base + '?' + String.join("&", rest), cluster, batch, batchSync);
  }

  private static boolean parseBoolean(String value) {
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException(
        "sluice.redis.uri parameter cluster must be true or false but was '" + value + "'");
  }

  private static int parseBatch(String value) {
    try {
      int batch = Integer.parseInt(value);
      if (batch >= 2) {
        return batch;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "sluice.redis.uri parameter batch must be a whole number >= 2 but was '" + value + "'");
  }

  private static Duration parseDuration(String value) {
    try {
      Duration parsed = DurationText.parse(value);
      if (parsed.toMillis() >= 1) {
        return parsed;
      }
    } catch (IllegalArgumentException e) {
      // reported below, with the parameter's name and its own lower bound
    }
    throw new IllegalArgumentException("sluice.redis.uri parameter batch-sync must be a duration "
        + "of at least 1ms (500ms, 2s, PT1S) but was '" + value + "'");
  }
}
