package dev.sluice.testing;

import dev.sluice.testing.RateHistory.Allowance;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Jobs' start and end records checked against a concurrency limit: at no instant more jobs
 * running than the limit plus the allowances in force then. Jobs are counted from the server's own
 * records (when the handler started and ended), so a slow client cannot hide an overlap.
 */
public final class ConcurrencyHistory {

  private ConcurrencyHistory() {}

  /** One job: where it ran and when, on one clock; {@code endedNanos} after {@code startedNanos}. */
  public record Job(String node, long startedNanos, long endedNanos) {
    public Job {
      Objects.requireNonNull(node, "node");
      if (endedNanos < startedNanos) {
        throw new IllegalArgumentException(
            "ended before started: " + startedNanos + " > " + endedNanos);
      }
    }
  }

  /**
   * A moment with more jobs running than allowed.
   *
   * @param atNanos when the job that made it too many started
   * @param running jobs running then, that one included
   * @param allowed the limit plus the allowances in force then
   * @param faults the allowances in force
   */
  public record Overrun(long atNanos, int running, long allowed, List<String> faults) {}

  /** What the check found: the most jobs at once and every start that went above the bound. */
  public record Report(int jobs, int mostAtOnce, List<Overrun> overruns) {

    public boolean withinLimit() {
      return overruns.isEmpty();
    }

    public String summary() {
      return jobs + " jobs, at most " + mostAtOnce + " at once, " + overruns.size()
          + " starts above the limit" + (overruns.isEmpty() ? "" : ", first " + overruns.get(0));
    }
  }

  /**
   * Checks that no job started while {@code limit} plus the allowances in force were running. A
   * job that ends at the instant another starts does not overlap it.
   */
  public static Report check(Collection<Job> jobs, int limit, Collection<Allowance> allowances) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
    }
    List<long[]> events = new ArrayList<>(jobs.size() * 2);
    for (Job job : jobs) {
      events.add(new long[] {job.startedNanos(), 1});
      events.add(new long[] {job.endedNanos(), -1});
    }
    // ends before starts at the same instant
    events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int running = 0;
    int most = 0;
    List<Overrun> overruns = new ArrayList<>();
    for (long[] event : events) {
      running += (int) event[1];
      if (event[1] < 0) {
        continue;
      }
      most = Math.max(most, running);
      long allowed = limit;
      List<String> faults = new ArrayList<>();
      for (Allowance a : allowances) {
        if (event[0] >= a.fromNanos() && event[0] < a.toNanos()) {
          allowed += a.permits();
          faults.add(a.fault());
        }
      }
      if (running > allowed) {
        overruns.add(new Overrun(event[0], running, allowed, List.copyOf(faults)));
      }
    }
    return new Report(jobs.size(), most, List.copyOf(overruns));
  }
}
