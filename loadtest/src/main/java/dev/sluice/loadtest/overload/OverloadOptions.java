package dev.sluice.loadtest.overload;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line's choices for {@code --scenario overload}.
 *
 * @param points offered loads of the sweep as multiples of the unloaded capacity ({@code --points};
 *     empty with {@code --points none}: the step test only)
 * @param jobs the kinds of job ({@code --jobs})
 * @param step whether the step test runs too ({@code --step})
 */
public record OverloadOptions(List<Double> points, List<JobKind> jobs, boolean step) {

  public static final OverloadOptions DEFAULTS =
      new OverloadOptions(List.of(1.0, 2.0, 5.0, 10.0), JobKind.DEFAULTS, false);

  public OverloadOptions {
    points = List.copyOf(points);
    jobs = List.copyOf(jobs);
  }

  public OverloadOptions withPoints(List<Double> points) {
    return new OverloadOptions(points, jobs, step);
  }

  public OverloadOptions withJobs(List<JobKind> jobs) {
    return new OverloadOptions(points, jobs, step);
  }

  public OverloadOptions withStep() {
    return new OverloadOptions(points, jobs, true);
  }

  /**
   * Parses the load points of an option, as multiples of the measured capacity.
   *
   * @param value a comma list of multiples > 0 (e.g. {@code 1,2,5,10}), or {@code none}
   * @throws IllegalArgumentException naming the option and the value
   */
  public static List<Double> points(String option, String value) {
    if (value.trim().equalsIgnoreCase("none")) {
      return List.of();
    }
    List<Double> points = new ArrayList<>();
    for (String part : value.split(",")) {
      try {
        double point = Double.parseDouble(part.trim());
        if (point > 0 && point <= 1000) {
          points.add(point);
          continue;
        }
      } catch (NumberFormatException e) {
        // the message below
      }
      throw new IllegalArgumentException(
          option + " must be none or a comma list of multiples in (0, 1000]"
              + " such as 1,2,5,10 but was '" + value + "'");
    }
    return List.copyOf(points);
  }

  /** Nothing to run: no sweep point and no step test. */
  boolean empty() {
    return points.isEmpty() && !step;
  }
}
