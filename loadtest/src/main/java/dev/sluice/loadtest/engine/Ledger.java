package dev.sluice.loadtest.engine;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts requests and tries as they happen and closes the books at the end of a run.
 *
 * <p>Every method is synchronized: a response can race the end of the run (a try answered while the
 * books close, a retry timer firing after), and one lock makes "counted exactly once" obvious. The
 * load generator makes at most a few thousand calls a second, far below where this lock would show.
 */
public final class Ledger {

  /** One request of the plan, from its first try to its outcome. */
  static final class Job {
    final Arrival arrival;
    final long intendedNanos;
    private boolean attemptOpen;
    private boolean finished;

    private Job(Arrival arrival, long intendedNanos) {
      this.arrival = arrival;
      this.intendedNanos = intendedNanos;
    }
  }

  private final Map<String, Long> sent = new TreeMap<>();
  private final Map<String, Map<String, Long>> outcomes = new TreeMap<>();
  private final Map<String, Long> attemptStatuses = new TreeMap<>();
  private final Set<Job> open = new LinkedHashSet<>();
  private long attempts;
  private long retries;
  private long gaveUp;
  private long abandoned;
  private boolean closed;

  /** Opens a request and counts its first try; null once the books are closed. */
  synchronized Job open(Arrival arrival, long intendedNanos) {
    if (closed) {
      return null;
    }
    Job job = new Job(arrival, intendedNanos);
    open.add(job);
    sent.merge(arrival.stream(), 1L, Long::sum);
    attempts++;
    job.attemptOpen = true;
    return job;
  }

  /** Counts a retry about to be sent; false when the request already ended (then do not send). */
  synchronized boolean retry(Job job) {
    if (job.finished || closed) {
      return false;
    }
    attempts++;
    retries++;
    job.attemptOpen = true;
    return true;
  }

  /** Counts a try's status; ignored when the try was already written off as abandoned. */
  synchronized void answered(Job job, String status) {
    if (!job.attemptOpen) {
      return;
    }
    job.attemptOpen = false;
    attemptStatuses.merge(status, 1L, Long::sum);
  }

  /** Ends a request with its outcome; false when it had already ended (the first outcome stands). */
  synchronized boolean finish(Job job, String outcome, boolean gaveUpRetrying) {
    if (job.finished) {
      return false;
    }
    job.finished = true;
    open.remove(job);
    outcomes
        .computeIfAbsent(job.arrival.stream(), k -> new TreeMap<>())
        .merge(outcome, 1L, Long::sum);
    if (gaveUpRetrying) {
      gaveUp++;
    }
    return true;
  }

  /** Requests still open. */
  public synchronized int openCount() {
    return open.size();
  }

  /** Ends every open request as {@link Accounting#UNFINISHED}, and refuses new tries from now on. */
  public synchronized Accounting close() {
    closed = true;
    for (Job job : Set.copyOf(open)) {
      if (job.attemptOpen) {
        job.attemptOpen = false;
        abandoned++;
      }
      finish(job, Accounting.UNFINISHED, false);
    }
    return snapshot();
  }

  synchronized Accounting snapshot() {
    Map<String, Map<String, Long>> outcomesCopy = new TreeMap<>();
    outcomes.forEach((k, v) -> outcomesCopy.put(k, sorted(v)));
    return new Accounting(
        sorted(sent),
        Collections.unmodifiableMap(outcomesCopy),
        attempts,
        retries,
        gaveUp,
        sorted(attemptStatuses),
        abandoned);
  }

  private static Map<String, Long> sorted(Map<String, Long> counts) {
    return Collections.unmodifiableMap(new TreeMap<>(counts));
  }
}
