package dev.sluice.grpc;

import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.Permit;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What this door knows of its own calls on the limiters it shares with another door: the calls
 * waiting in their queues (answered {@code UNAVAILABLE} when the door stops, since the limiter
 * itself goes on) and the calls running on their permits (what {@link SluiceGrpc#awaitDrained}
 * waits for). The other door's requests on the same limiters are not seen here.
 */
final class SharedCalls {

  private final Set<QueuedCall<?, ?>> waiting = ConcurrentHashMap.newKeySet();
  private volatile boolean stopped;
  private int running; // guarded by this

  /** {@code permit}, counted as one of this door's running calls until it is released. */
  Permit running(Permit permit) {
    synchronized (this) {
      running++;
    }
    return new Counted(permit);
  }

  /** {@code call} waits in a shared limiter's queue; answered at once if the door has stopped. */
  void waiting(QueuedCall<?, ?> call) {
    waiting.add(call);
    // stop() sets the flag before it walks the set: one of the two sees this call
    if (stopped) {
      call.stop(Answer.shuttingDown(RetryAfter.SHUTDOWN_SECONDS));
    }
  }

  /** The limiter decided {@code call} (or it left): no longer this door's to stop. */
  void decided(QueuedCall<?, ?> call) {
    waiting.remove(call);
  }

  /** Takes every waiting call out of its queue with the shutdown answer. */
  void stop() {
    stopped = true;
    for (QueuedCall<?, ?> call : waiting) {
      call.stop(Answer.shuttingDown(RetryAfter.SHUTDOWN_SECONDS));
    }
  }

  /** Waits until none of this door's calls holds a shared permit, or {@code deadline} passes. */
  synchronized boolean awaitNone(long deadlineNanos) throws InterruptedException {
    while (running > 0) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  private synchronized void ended() {
    if (--running == 0) {
      notifyAll();
    }
  }

  /** A shared permit whose first release also ends the call's count. */
  private final class Counted implements Permit {
    private final Permit permit;
    private final AtomicBoolean released = new AtomicBoolean();

    Counted(Permit permit) {
      this.permit = permit;
    }

    @Override
    public void release() {
      if (released.compareAndSet(false, true)) {
        try {
          permit.release();
        } finally {
          ended();
        }
      }
    }

    @Override
    public boolean isReleased() {
      return released.get();
    }

    @Override
    public long queuedNanos() {
      return permit.queuedNanos();
    }
  }
}
