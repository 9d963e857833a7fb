package dev.sluice.loadtest.monday;

import java.util.List;

/**
 * The machine's CPU over a run, one reading per interval, and the figures the scenario is judged
 * by: the mean, the time above 90 %, the longest stretch above 95 % (the scenario's "99 % for more
 * than 3 minutes at a time") and the worst 10-second window once the controller had time to settle.
 *
 * @param samples in time order
 */
public record CpuTrace(List<Sample> samples) {

  /**
   * The CPU over one interval.
   *
   * @param endSecond seconds since the run started, at the end of the interval
   * @param seconds how long the interval was
   * @param percent busy share of the whole machine over it
   */
  public record Sample(double endSecond, double seconds, double percent) {}

  public CpuTrace {
    samples = samples.stream()
        .filter(s -> s.seconds() > 0 && !Double.isNaN(s.percent()))
        .toList();
  }

  /** Time-weighted mean percent; NaN without samples. */
  public double mean() {
    double time = 0;
    double sum = 0;
    for (Sample s : samples) {
      time += s.seconds();
      sum += s.seconds() * s.percent();
    }
    return time == 0 ? Double.NaN : sum / time;
  }

  /** Seconds spent above {@code percent}. */
  public double secondsAbove(double percent) {
    return samples.stream()
        .filter(s -> s.percent() > percent)
        .mapToDouble(Sample::seconds)
        .sum();
  }

  /** The longest run of consecutive intervals above {@code percent}, in seconds. */
  public double longestAbove(double percent) {
    double longest = 0;
    double current = 0;
    for (Sample s : samples) {
      current = s.percent() > percent ? current + s.seconds() : 0;
      longest = Math.max(longest, current);
    }
    return longest;
  }

  /**
   * The highest mean over any {@code window} seconds of consecutive intervals that start at or
   * after {@code afterSecond}; NaN when the run has no such window (too short).
   */
  public double worstWindow(double window, double afterSecond) {
    double worst = Double.NaN;
    List<Sample> late = samples.stream()
        .filter(s -> s.endSecond() - s.seconds() >= afterSecond - 1e-9)
        .toList();
    for (int start = 0; start < late.size(); start++) {
      double time = 0;
      double sum = 0;
      for (int end = start; end < late.size() && time < window - 1e-9; end++) {
        time += late.get(end).seconds();
        sum += late.get(end).seconds() * late.get(end).percent();
      }
      if (time >= window - 1e-9) {
        double mean = sum / time;
        worst = Double.isNaN(worst) ? mean : Math.max(worst, mean);
      }
    }
    return worst;
  }
}
