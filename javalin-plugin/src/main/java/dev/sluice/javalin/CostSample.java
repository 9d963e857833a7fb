package dev.sluice.javalin;

/**
 * A request under a learned cost: its group, and when it was admitted (0 until then), so that the
 * after-handler can report its service time to the cost.
 */
final class CostSample {

  static final String ATTRIBUTE = "dev.sluice.javalin.CostSample";

  final RequestCost cost;
  final String group;
  volatile long admittedNanos;

  CostSample(RequestCost cost, String group) {
    this.cost = cost;
    this.group = group;
  }
}
