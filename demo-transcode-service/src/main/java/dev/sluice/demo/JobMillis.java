package dev.sluice.demo;

/**
 * A job's milliseconds query parameter, checked: {@code cpuMillis} (required, a whole number in
 * [1, max]) or {@code waitMillis} (optional, absent means 0, a whole number in [0, max]).
 */
enum JobMillis {
  /** CPU the job burns. */
  CPU("cpuMillis", 1, true),
  /** Time the job waits without CPU (reading footage from storage). */
  WAIT("waitMillis", 0, false);

  final String parameter;
  private final int min;
  private final boolean required;

  JobMillis(String parameter, int min, boolean required) {
    this.parameter = parameter;
    this.min = min;
    this.required = required;
  }

  /** @throws BadRequest naming the parameter and the value */
  int parse(String value, int max) {
    String range = "a whole number of milliseconds in [" + min + ", " + max + "]";
    if (value == null || value.isBlank()) {
      if (!required && value == null) {
        return 0;
      }
      throw new BadRequest(parameter, value, (required ? "is required: " : "must be ") + range);
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new BadRequest(parameter, value, "must be " + range);
  }
}
