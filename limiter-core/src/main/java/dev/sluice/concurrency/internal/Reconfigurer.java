package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Reconfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A local limiter's spec in force and the one way it changes: {@link #change} applies every
 * difference it can apply live, to the engine ({@link BoundedQueueLimiter}: limit source, queue)
 * and to its {@link AdmissionPolicy} (queue bound, timeout, reject-early, standing queue, the
 * prediction's seed), and says what it did in a {@link Reconfiguration}. Never on the request
 * path.
 */
final class Reconfigurer {

  private final BoundedQueueLimiter engine;
  private final AdmissionPolicy admission;

  /** The configuration in force; replaced whole by {@link #change}. */
  private volatile LimiterSpec spec;

  /** Serialises changes of the spec. */
  private final Object reconfiguring = new Object();

  Reconfigurer(BoundedQueueLimiter engine, AdmissionPolicy admission, LimiterSpec spec) {
    this.engine = engine;
    this.admission = admission;
    this.spec = spec;
  }

  LimiterSpec inForce() {
    return spec;
  }

  Reconfiguration reconfigure(LimiterSpec next) {
    Objects.requireNonNull(next, "spec must not be null");
    return change(inForce -> next);
  }

  /**
   * The one way the spec changes ({@link #reconfigure}): {@code change} makes the
   * next spec from the one in force, under the same monitor that applies it, so two changes at
   * once never lose one; then waiters are granted what a higher limit or another queue lets in.
   */
  private Reconfiguration change(UnaryOperator<LimiterSpec> change) {
    List<String> applied = new ArrayList<>();
    List<String> restart = new ArrayList<>();
    LimiterSpec next;
    synchronized (reconfiguring) {
      LimiterSpec before = spec;
      next = change.apply(before);
      if (engine.isShutdown()) {
        if (!next.equals(before)) {
          restart.add("limiter '" + engine.name() + "' is shut down; nothing changed");
        }
        return new Reconfiguration(before, applied, restart);
      }
      applyLimit(before, next, applied);
      applyQueue(before, next, applied);
      applyPrediction(before, next, applied);
      if (!next.leaseTime().equals(before.leaseTime())) {
        applied.add("leaseTime " + before.leaseTime() + " -> " + next.leaseTime());
      }
      spec = next;
    }
    engine.grantWhileFree(); // a higher limit, or a queue whose head may now be served
    return new Reconfiguration(next, applied, restart);
  }

  private void applyLimit(LimiterSpec before, LimiterSpec next, List<String> applied) {
    if (!next.limit().equals(before.limit())) {
      // the new strategy starts from the limit in force, so a switch does not jump; rebuilding
      // the limiter instead would, for a moment, let two limiters each admit up to their limit
      int inForce = engine.limit();
      engine.swapSource(next.limit().newSource(next.maxConcurrency(), inForce));
      applied.add("limit " + before.limit() + " -> " + next.limit() + ", from limit " + inForce
          + (next.maxConcurrency() != before.maxConcurrency()
              ? ", maxConcurrency " + before.maxConcurrency() + " -> " + next.maxConcurrency()
              : ""));
    } else if (next.maxConcurrency() != before.maxConcurrency()) {
      engine.limitSource().setLimit(next.maxConcurrency());
      applied.add("maxConcurrency " + before.maxConcurrency() + " -> " + next.maxConcurrency());
    }
  }

  private void applyQueue(LimiterSpec before, LimiterSpec next, List<String> applied) {
    if (next.maxQueue() != before.maxQueue()) {
      admission.maxQueue(next.maxQueue()); // newcomers; callers queued keep their place
      applied.add("maxQueue " + before.maxQueue() + " -> " + next.maxQueue());
    }
    if (!next.queueTimeout().equals(before.queueTimeout())) {
      admission.queueTimeout(next.queueTimeout()); // newcomers
      applied.add("queueTimeout " + before.queueTimeout() + " -> " + next.queueTimeout());
    }
    if (next.rejectEarly() != before.rejectEarly()) {
      admission.rejectEarly(next.rejectEarly()); // newcomers
      applied.add("rejectEarly " + before.rejectEarly() + " -> " + next.rejectEarly());
    }
    if (!next.queue().equals(before.queue())) {
      int moved = engine.moveTo(next.queue().newQueue());
      applied.add(
          "queue " + before.queue() + " -> " + next.queue() + ", " + moved + " waiting moved");
    }
  }

  private void applyPrediction(LimiterSpec before, LimiterSpec next, List<String> applied) {
    if (!next.queueDelayTarget().equals(before.queueDelayTarget())) {
      admission.queueDelayTarget(
          next.queueDelayTarget().map(AdmissionPolicy::saturatedNanos).orElse(0L));
      applied.add("queueDelayTarget "
          + before.queueDelayTarget().map(Duration::toString).orElse("off") + " -> "
          + next.queueDelayTarget().map(Duration::toString).orElse("off"));
    }
    if (!next.expectedServiceTime().equals(before.expectedServiceTime())) {
      // it counts as a few jobs, one fewer per job timed: after those, the timed jobs speak
      String taken = admission.seed(next.expectedServiceTime().orElse(Duration.ZERO))
              || next.expectedServiceTime().isEmpty()
          ? ""
          : " (jobs were timed already: the prediction goes on from them)";
      applied.add("expectedServiceTime "
          + before.expectedServiceTime().map(Duration::toString).orElse("none") + " -> "
          + next.expectedServiceTime().map(Duration::toString).orElse("none") + taken);
    }
  }
}
