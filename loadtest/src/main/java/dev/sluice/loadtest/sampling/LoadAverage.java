package dev.sluice.loadtest.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average, as {@code uptime} prints it: a figure measured on a shared machine is
 * worth little without it.
 */
public final class LoadAverage {

  private LoadAverage() {}

  /** {@code /proc/loadavg}'s 1, 5 and 15 minute figures, {@code "1.20 / 0.80 / 0.50"}; or unknown. */
  public static String read() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " / " + fields[1] + " / " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The 1-minute figure, or NaN when it cannot be read. */
  public static double oneMinute() {
    try {
      return Double.parseDouble(read().split(" / ")[0]);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
