package dev.sluice.loadtest.jepsen;

/**
 * A planned fault as it happened, on the history's clock (nanoseconds from the run's origin).
 *
 * @param number its place in the schedule, from 1
 * @param planned what the schedule said
 * @param fromNanos when it was injected
 * @param healedNanos when it was healed
 * @param settledNanos when both nodes answered as on Redis again, plus the settling time
 * @param notRun empty when it ran; else why not (e.g. libfaketime is not installed)
 */
record Injected(
    int number,
    Schedule.Planned planned,
    long fromNanos,
    long healedNanos,
    long settledNanos,
    String notRun) {

  static Injected skipped(int number, Schedule.Planned planned, long atNanos, String why) {
    return new Injected(number, planned, atNanos, atNanos, atNanos, why);
  }

  boolean ran() {
    return notRun.isEmpty();
  }

  /** E.g. {@code #3 blackhole}: the name its allowances and the report use. */
  String name() {
    return "#" + number + " " + planned.kind().id();
  }
}
