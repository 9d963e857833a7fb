package dev.sluice.javalin;

import dev.sluice.concurrency.Permit;
import java.util.ArrayList;
import java.util.List;

/**
 * The permits one request holds, released exactly once whichever way the request ends: the
 * after-handler, Javalin's async timeout, or a permit that arrives after the request is already over
 * (a grant racing a client that went away) — that one is released on arrival.
 */
final class Admission {

  static final String ATTRIBUTE = "dev.sluice.javalin.Admission";

  private record Held(String limiter, Permit permit) {}

  // a request has at most two permits (path limiter, wrapped handler); a plain lock is cheapest
  private final List<Held> held = new ArrayList<>(2);
  private boolean closed;
  private boolean parked;

  /** The request waits for a permit: the endpoint must not run until {@link #hold} is called. */
  synchronized void park() {
    parked = true;
  }

  /** Still waiting for a permit (the request resumed some other way, e.g. an async timeout). */
  synchronized boolean isParked() {
    return parked;
  }

  /** Keeps the permit until {@link #close()}; releases it at once if the request is already over. */
  boolean hold(String limiter, Permit permit) {
    synchronized (this) {
      parked = false;
      if (!closed) {
        held.add(new Held(limiter, permit));
        return true;
      }
    }
    permit.release();
    return false;
  }

  synchronized boolean holds(String limiter) {
    for (Held h : held) {
      if (h.limiter().equals(limiter)) {
        return true;
      }
    }
    return false;
  }

  /** Releases every held permit; later calls do nothing. */
  void close() {
    List<Held> toRelease;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toRelease = List.copyOf(held);
      held.clear();
    }
    for (Held h : toRelease) {
      h.permit().release();
    }
  }

  synchronized boolean isClosed() {
    return closed;
  }
}
