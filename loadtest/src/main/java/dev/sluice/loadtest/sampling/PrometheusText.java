package dev.sluice.loadtest.sampling;

import java.util.OptionalDouble;

/**
 * Reads single values out of the Prometheus text exposition format (what Micrometer's Prometheus
 * registry serves at {@code /metrics}).
 */
public final class PrometheusText {

  private PrometheusText() {}

  /**
   * The value of the first sample of a metric, ignoring labels; empty when absent, NaN or negative
   * (the JVM reports -1 for a CPU load it cannot read yet).
   */
  public static OptionalDouble value(String text, String metric) {
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.charAt(0) == '#' || !line.startsWith(metric)) {
        continue;
      }
      int end = metric.length();
      if (line.length() == end) {
        continue;
      }
      char next = line.charAt(end);
      if (next != ' ' && next != '{') {
        continue; // a longer name with the same prefix, e.g. process_cpu_usage_total
      }
      String rest = line.substring(end);
      if (next == '{') {
        int close = rest.lastIndexOf('}');
        if (close < 0) {
          continue;
        }
        rest = rest.substring(close + 1);
      }
      String[] fields = rest.trim().split("\\s+"); // value, then an optional timestamp
      try {
        double v = Double.parseDouble(fields[0]);
        return Double.isNaN(v) || v < 0 ? OptionalDouble.empty() : OptionalDouble.of(v);
      } catch (NumberFormatException e) {
        return OptionalDouble.empty();
      }
    }
    return OptionalDouble.empty();
  }

  /** The sum of every heap pool's {@code jvm_memory_used_bytes} (Micrometer's JVM memory meters). */
  public static long heapUsedBytes(String text) {
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum +=
            Double.parseDouble(line.substring(line.lastIndexOf('}') + 1).trim().split("\\s+")[0]);
      }
    }
    return (long) sum;
  }
}
