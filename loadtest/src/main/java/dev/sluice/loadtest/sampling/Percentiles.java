package dev.sluice.loadtest.sampling;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A latency distribution in milliseconds.
 *
 * @param count values recorded
 */
public record Percentiles(long count, double p50, double p90, double p99, double p999, double max) {

  /**
   * The percentiles of a histogram, in milliseconds.
   *
   * @param unitsPerMilli 1000 for a histogram of microseconds, 1 for milliseconds */
  public static Percentiles of(Histogram h, double unitsPerMilli) {
    return new Percentiles(
        h.getTotalCount(),
        h.getValueAtPercentile(50) / unitsPerMilli,
        h.getValueAtPercentile(90) / unitsPerMilli,
        h.getValueAtPercentile(99) / unitsPerMilli,
        h.getValueAtPercentile(99.9) / unitsPerMilli,
        h.getMaxValue() / unitsPerMilli);
  }

  /** The figures by name, in order: {@code p50}, {@code p90}, {@code p99}, {@code p99.9}, {@code max}. */
  public Map<String, Double> byName() {
    Map<String, Double> named = new LinkedHashMap<>();
    named.put("p50", p50);
    named.put("p90", p90);
    named.put("p99", p99);
    named.put("p99.9", p999);
    named.put("max", max);
    return named;
  }
}
