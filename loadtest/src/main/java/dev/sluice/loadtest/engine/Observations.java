package dev.sluice.loadtest.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The measurements of one run: latency histograms per stream and outcome (from the intended send
 * time), the service and queue times the server reported for admitted jobs, and tries per second by
 * status.
 */
public final class Observations {

  private static final long MAX_MICROS = TimeUnit.HOURS.toMicros(1);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int seconds;
  private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
  private final Map<String, Histogram> serviceMillis = new ConcurrentHashMap<>();
  private final Map<String, Histogram> queuedMillis = new ConcurrentHashMap<>();
  private final Map<String, AtomicLongArray> statusPerSecond = new ConcurrentHashMap<>();

  /** @param seconds length of the timeline; later events land in its last second */
  public Observations(int seconds) {
    this.seconds = Math.max(1, seconds);
  }

  /** A request ended: latency from when it was meant to be sent to its final answer. */
  void outcome(String stream, String outcome, long latencyNanos) {
    histogram(latency, stream + " " + outcome).recordValue(clamp(latencyNanos / 1000));
  }

  /** A try was answered {@code second} seconds into the run. */
  void attempt(String status, int second) {
    statusPerSecond
        .computeIfAbsent(status, s -> new AtomicLongArray(seconds))
        .incrementAndGet(Math.max(0, Math.min(seconds - 1, second)));
  }

  /** Reads serviceMillis and queuedMillis from a job's JSON answer, when it has them. */
  void jobBody(String stream, String body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node != null && node.has("serviceMillis")) {
        histogram(serviceMillis, stream)
            .recordValue(clamp(node.get("serviceMillis").asLong()));
        histogram(queuedMillis, stream)
            .recordValue(clamp(node.path("queuedMillis").asLong()));
      }
    } catch (Exception notJson) {
      // a body we cannot read is simply not a job answer; the status was counted already
    }
  }

  public Map<String, Histogram> latency() {
    return new TreeMap<>(latency);
  }

  public Map<String, Histogram> serviceMillis() {
    return new TreeMap<>(serviceMillis);
  }

  public Map<String, Histogram> queuedMillis() {
    return new TreeMap<>(queuedMillis);
  }

  /** Tries per second by status, each array {@code seconds} long. */
  public Map<String, long[]> statusPerSecond() {
    Map<String, long[]> copy = new TreeMap<>();
    statusPerSecond.forEach((status, counts) -> {
      long[] values = new long[counts.length()];
      for (int i = 0; i < values.length; i++) {
        values[i] = counts.get(i);
      }
      copy.put(status, values);
    });
    return copy;
  }

  int seconds() {
    return seconds;
  }

  private static Histogram histogram(Map<String, Histogram> map, String key) {
    return map.computeIfAbsent(key, k -> new ConcurrentHistogram(MAX_MICROS, 3));
  }

  private static long clamp(long value) {
    return Math.max(0, Math.min(MAX_MICROS, value));
  }
}
