package dev.sluice.loadtest.monday;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The whole machine's CPU from the first line of {@code /proc/stat}: every process counts, so the
 * demo's ffmpeg children do (the JVM's own counters never see them), and so does everything else on
 * the machine, the load generator included.
 *
 * @param busy jiffies spent on work (user, nice, system, irq, softirq, steal)
 * @param total every jiffy, idle and iowait included
 */
record MachineCpu(long busy, long total) {

  /** The machine's counters now; empty off Linux. */
  static Optional<MachineCpu> read() {
    try {
      return Optional.of(parse(Files.readAllLines(Path.of("/proc/stat")).get(0)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The aggregate {@code cpu} line: {@code cpu user nice system idle iowait irq softirq steal guest
   * guest_nice}. Guest time is already inside user and nice, so it is not added again.
   *
   * @throws IllegalArgumentException not a {@code cpu} line
   */
  static MachineCpu parse(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 5 || !f[0].equals("cpu")) {
      throw new IllegalArgumentException(
          "not the aggregate cpu line of /proc/stat: '" + line + "'");
    }
    long[] v = new long[8];
    for (int i = 0; i < v.length && i + 1 < f.length; i++) {
      v[i] = Long.parseLong(f[i + 1]);
    }
    long idle = v[3] + v[4];
    long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return new MachineCpu(busy, busy + idle);
  }

  /** Percent of the machine busy between {@code earlier} and this reading; NaN when no time passed. */
  double percentSince(MachineCpu earlier) {
    long dt = total - earlier.total;
    return dt <= 0 ? Double.NaN : 100.0 * (busy - earlier.busy) / dt;
  }
}
