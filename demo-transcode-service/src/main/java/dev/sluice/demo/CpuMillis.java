package dev.sluice.demo;

/** The {@code cpuMillis} query parameter, checked: a whole number in [1, max]. */
final class CpuMillis {

  private CpuMillis() {}

  /** @throws BadRequest naming the parameter and the value */
  static int parse(String value, int max) {
    if (value == null || value.isBlank()) {
      throw new BadRequest("cpuMillis", value, "is required: a whole number of milliseconds in [1, " + max + "]");
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new BadRequest("cpuMillis", value, "must be a whole number of milliseconds in [1, " + max + "]");
  }
}
