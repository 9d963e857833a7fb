package dev.sluice.loadtest.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends each arrival of a plan at its intended time, whatever the responses do.
 *
 * <p>One timer task walks the plan: it sends every arrival that is due, then schedules itself for the
 * next one. If the timer runs late (a GC pause, a busy machine), the late arrivals go out at once and
 * keep their intended time, so the latency the report shows includes the delay: that is how
 * coordinated omission is avoided (Gil Tene's point: a closed-loop tester waits for the slow response
 * before sending the next request and never records the requests it should have sent meanwhile).
 */
public final class OpenLoopDispatcher {

  /** Receives an arrival and the clock reading it was meant to be sent at; must not block. */
  @FunctionalInterface
  public interface Sender {
    void send(Arrival arrival, long intendedNanos);
  }

  private final List<Arrival> arrivals;
  private final LoadClock clock;
  private final Sender sender;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private long startNanos;
  private int next;

  public OpenLoopDispatcher(ArrivalPlan plan, LoadClock clock, Sender sender) {
    this.arrivals = plan.arrivals();
    this.clock = clock;
    this.sender = sender;
  }

  /** Starts the run now; returns when the plan has been sent (completed on the timer). */
  public CompletableFuture<Void> start() {
    startNanos = clock.nanoTime();
    schedule();
    return done;
  }

  /** The clock reading the run started at. */
  public long startNanos() {
    return startNanos;
  }

  private void schedule() {
    if (next >= arrivals.size()) {
      done.complete(null);
      return;
    }
    long due = startNanos + arrivals.get(next).offsetNanos();
    clock.schedule(this::tick, due - clock.nanoTime());
  }

  // runs on the timer only, so next needs no synchronisation
  private void tick() {
    long now = clock.nanoTime();
    while (next < arrivals.size()) {
      Arrival arrival = arrivals.get(next);
      long intended = startNanos + arrival.offsetNanos();
      if (intended - now > 0) {
        break;
      }
      next++;
      try {
        sender.send(arrival, intended);
      } catch (RuntimeException e) {
        // a sender must account for its own failures; never let one stop the plan
        done.completeExceptionally(e);
        return;
      }
    }
    schedule();
  }
}
