package dev.sluice.loadtest.overload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.DoublePredicate;

/**
 * How long a series takes to settle after a step of the offered load: the time from the step to the
 * first reading after which every reading up to the end of the phase is within the band (the
 * settling time of control theory). A series that ends the phase outside the band never settled.
 *
 * <p>Every reading covers the second before it (the CPU over the sampler's last second, the
 * requests sent in a second). A reading belongs to the phase its second began in: one that began
 * before the step mostly shows the load before it, so the earliest settling time is one second, an
 * upper bound at that resolution rather than a figure flattered by a sample taken just after the step.
 */
final class StepRecovery {

  /**
   * One reading: its time (seconds into the run; the end of the span it covers), value and span
   * (seconds).
   */
  record Reading(double at, double value, double span) {

    /** A reading of the second before {@code at}. */
    Reading(double at, double value) {
      this(at, value, 1);
    }

    /** When the span it covers began. */
    double from() {
      return at - span;
    }
  }

  /**
   * Means of {@code seconds} consecutive readings, each ending at the last one's time: readings of
   * 1-second CPU on 2 cores move by a job's share of a second whatever the limit does (sd 4-6
   * points for 200 ms jobs in steady overload), so a band of 5 points is met or missed by chance
   * on them; on means of 2 s the controller shows. A mean needs {@code seconds} readings, each
   * about a second after the one before and none NaN.
   */
  static List<Reading> means(List<Reading> series, int seconds) {
    List<Reading> means = new ArrayList<>();
    for (int i = seconds - 1; i < series.size(); i++) {
      double sum = 0;
      boolean whole = true;
      for (int k = i - seconds + 1; k <= i; k++) {
        Reading r = series.get(k);
        boolean next =
            k == i - seconds + 1 || Math.abs(r.at() - series.get(k - 1).at() - 1) < 0.5;
        whole &= next && !Double.isNaN(r.value());
        sum += r.value();
      }
      if (whole) {
        means.add(new Reading(series.get(i).at(), sum / seconds, seconds));
      }
    }
    return means;
  }

  private StepRecovery() {}

  /**
   *Returns seconds from the step until the series stayed in the band, or empty when it did not
   * settle within the phase (or had no reading in it).
   * @param series readings in time order; NaN values are gaps and are skipped
   * @param stepAt when the load stepped
   * @param phaseEnd when the next step came (or the run ended)
   * @param inBand whether a value is where it should be
   *
   */
  static OptionalDouble settle(
      List<Reading> series, double stepAt, double phaseEnd, DoublePredicate inBand) {
    Double settledAt = null;
    boolean any = false;
    for (Reading r : series) {
      if (r.from() < stepAt || r.from() >= phaseEnd || Double.isNaN(r.value())) {
        continue;
      }
      any = true;
      if (!inBand.test(r.value())) {
        settledAt = null;
      } else if (settledAt == null) {
        settledAt = r.at();
      }
    }
    return !any || settledAt == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(settledAt - stepAt);
  }

  /**
   * The p99 (nearest rank) of admitted latency per second of intended send: requests sent in
   * {@code [k, k+1)} make the reading at {@code k + 1}, the time by which they were all sent (so a
   * settling time read off it is never too short). Seconds without an admitted request have no
   * reading.
   */
  static List<Reading> admittedP99PerSecond(List<Answer> answers) {
    TreeMap<Integer, List<Double>> bySecond = new TreeMap<>();
    for (Answer a : answers) {
      if (a.admitted()) {
        bySecond
            .computeIfAbsent((int) Math.floor(a.sentAt()), k -> new ArrayList<>())
            .add(a.latencyMillis());
      }
    }
    List<Reading> series = new ArrayList<>();
    bySecond.forEach((second, latencies) -> {
      Collections.sort(latencies);
      series.add(new Reading(second + 1, RunFigures.rank(latencies, 0.99)));
    });
    return series;
  }
}
