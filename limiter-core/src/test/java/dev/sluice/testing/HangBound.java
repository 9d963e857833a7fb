package dev.sluice.testing;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * How long a test waits, in wall time, for what takes microseconds when the code is right (a woken
 * thread coming back, a store freeing a slot) before it fails instead of hanging. Ten seconds by
 * default, generous for a loaded build machine. Mutation testing sets {@code -Dtest.hangBound=PT1S}
 * (the parent POM's {@code pit.jvmArgs}), so a mutant that never wakes the thread fails that test
 * within PIT's time allowance rather than being timed out, which costs a new JVM.
 */
public final class HangBound {

  /** The system property, an ISO-8601 duration (not under {@code sluice.}: strict mode owns those). */
  public static final String PROPERTY = "test.hangBound";

  private static final Duration DEFAULT = Duration.ofSeconds(10);

  private HangBound() {}

  /** The bound: the property's duration, or ten seconds. */
  public static Duration get() {
    String set = System.getProperty(PROPERTY);
    if (set == null || set.isBlank()) {
      return DEFAULT;
    }
    try {
      Duration bound = Duration.parse(set.trim());
      if (bound.isNegative() || bound.isZero()) {
        throw new IllegalArgumentException(
            "-D" + PROPERTY + " must be a positive duration but was '" + set + "'");
      }
      return bound;
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "-D" + PROPERTY + " must be an ISO-8601 duration such as PT1S but was '" + set + "'", e);
    }
  }
}
