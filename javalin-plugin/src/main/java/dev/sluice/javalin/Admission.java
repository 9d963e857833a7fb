package dev.sluice.javalin;

import dev.sluice.concurrency.Permit;
import java.util.concurrent.CompletableFuture;

/**
 * The permits one request holds, released exactly once whichever way the request ends: the
 * after-handler, Javalin's async timeout, or a permit that arrives after the request is already over
 * (a grant racing a client that went away) — that one is released on arrival.
 *
 * <p>A request nearly always holds one permit (its path's limiter), sometimes more (wrapped
 * handlers): the first sits in a field, the others in arrays made only when needed, so the common
 * request allocates nothing beyond this object.
 */
final class Admission {

  static final String ATTRIBUTE = "dev.sluice.javalin.Admission";

  // a plain lock: the only contention is a late grant racing the request's end, which is rare
  private String firstLimiter;
  private Permit first;
  private String[] moreLimiters; // null until a second permit
  private Permit[] more;
  private boolean closed;
  // read by the guard on every request; written by park and hold
  private volatile boolean parked;
  /** Set when the request ended while parked because the client left (not a server timeout). */
  private volatile boolean clientGone;

  private CompletableFuture<Permit> parkedOn;

  /**
   * The request waits for a permit: the endpoint must not run until {@link #hold} is called.
   * {@code waiter} is the limiter's own future, which leaves the queue when cancelled.
   */
  synchronized void park(CompletableFuture<Permit> waiter) {
    parkedOn = waiter;
    parked = true;
  }

  /**
   * The limiter's future the request waits on (see {@link #park}); null once {@link #hold} took
   * the permit, which can happen before the request is even suspended.
   */
  synchronized CompletableFuture<Permit> parkedOn() {
    return parkedOn;
  }

  /** The client hung up (or the request failed) while this request was queued. */
  void clientGone() {
    clientGone = true;
  }

  boolean isClientGone() {
    return clientGone;
  }

  /** Still waiting for a permit (the request resumed some other way, e.g. an async timeout). */
  boolean isParked() {
    return parked;
  }

  /** Keeps the permit until {@link #close()}; releases it at once if the request is already over. */
  boolean hold(String limiter, Permit permit) {
    synchronized (this) {
      parked = false;
      parkedOn = null;
      if (!closed) {
        if (first == null) {
          firstLimiter = limiter;
          first = permit;
        } else {
          int n = more == null ? 0 : more.length;
          moreLimiters =
              java.util.Arrays.copyOf(moreLimiters == null ? new String[0] : moreLimiters, n + 1);
          more = java.util.Arrays.copyOf(more == null ? new Permit[0] : more, n + 1);
          moreLimiters[n] = limiter;
          more[n] = permit;
        }
        return true;
      }
    }
    permit.release();
    return false;
  }

  synchronized boolean holds(String limiter) {
    if (limiter.equals(firstLimiter)) {
      return true;
    }
    for (int i = 0; moreLimiters != null && i < moreLimiters.length; i++) {
      if (limiter.equals(moreLimiters[i])) {
        return true;
      }
    }
    return false;
  }

  /** Releases every held permit; later calls do nothing. */
  void close() {
    Permit a;
    Permit[] others;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      a = first;
      others = more;
      first = null;
      more = null;
    }
    // released outside the lock: a release may hand the permit to a waiter (limiter code)
    if (a != null) {
      a.release();
    }
    for (int i = 0; others != null && i < others.length; i++) {
      others[i].release();
    }
  }

  synchronized boolean isClosed() {
    return closed;
  }
}
