package dev.sluice.loadtest.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether a retrying client's retries waited out the service's pushback: every attempt that follows
 * one closed with {@code grpc-retry-pushback-ms} must start no earlier than that attempt's close
 * plus the pushback.
 *
 * @param calls calls made through the retrying client
 * @param attempts attempts of those calls, the first ones included
 * @param afterPushback attempts that followed an attempt closed with a pushback: the ones checked
 * @param minSlackMillis the least (start - previous close - pushback) over the checked attempts, in
 *     ms; NaN when none was checked. Negative means a retry came early
 * @param violations the checked attempts that started early, described (at most {@link
 *     #LISTED_VIOLATIONS}; {@code violationCount} counts them all)
 * @param violationCount how many checked attempts started early
 * @param finalStatuses each call's last attempt's status, counted
 */
public record PushbackCheck(
    int calls,
    int attempts,
    int afterPushback,
    double minSlackMillis,
    List<String> violations,
    int violationCount,
    Map<String, Integer> finalStatuses) {

  /** Violations described in full; the rest are counted. */
  static final int LISTED_VIOLATIONS = 10;

  /**
   * One attempt of a call.
   *
   * @param call the call it belongs to
   * @param number its place among the call's attempts, from 0
   * @param startNanos when it started: its headers were sent (a monotonic clock)
   * @param closeNanos when it closed, on the same clock
   * @param status the status it closed with, e.g. {@code RESOURCE_EXHAUSTED}
   * @param pushbackMillis its {@code grpc-retry-pushback-ms} trailer, or -1 without one
   * @param transparent a transparent retry (the stream never reached the service), which grpc-java
   *     sends without waiting: not judged against a pushback
   * @param sent whether its headers were sent at all (a retry cancelled during its backoff never
   *     was; not judged, its start is its close)
   */
  public record Attempt(
      long call,
      int number,
      long startNanos,
      long closeNanos,
      String status,
      long pushbackMillis,
      boolean transparent,
      boolean sent) {}

  public PushbackCheck {
    violations = List.copyOf(violations);
    finalStatuses = Map.copyOf(finalStatuses);
  }

  /** Whether every retry after a pushback waited it out (and at least one was checked). */
  public boolean honoured() {
    return afterPushback > 0 && violationCount == 0;
  }

  /** Checks the recorded attempts, call by call in the order they started. */
  public static PushbackCheck of(List<Attempt> recorded) {
    Map<Long, List<Attempt>> byCall = new LinkedHashMap<>();
    recorded.forEach(
        a -> byCall.computeIfAbsent(a.call(), c -> new ArrayList<>()).add(a));
    int checked = 0;
    int early = 0;
    double minSlack = Double.NaN;
    List<String> violations = new ArrayList<>();
    Map<String, Integer> finals = new TreeMap<>();
    for (List<Attempt> attempts : byCall.values()) {
      // by start, compared as a difference: nanoTime may wrap
      long origin = attempts.get(0).startNanos();
      attempts.sort(Comparator.comparingLong((Attempt a) -> a.startNanos() - origin)
          .thenComparingInt(Attempt::number));
      finals.merge(attempts.get(attempts.size() - 1).status(), 1, Integer::sum);
      for (int i = 1; i < attempts.size(); i++) {
        Attempt before = attempts.get(i - 1);
        Attempt next = attempts.get(i);
        if (before.pushbackMillis() < 0 || next.transparent() || !next.sent()) {
          continue;
        }
        checked++;
        double slack = (next.startNanos() - before.closeNanos()) / 1e6 - before.pushbackMillis();
        minSlack = Double.isNaN(minSlack) ? slack : Math.min(minSlack, slack);
        if (slack < 0) {
          early++;
          if (violations.size() < LISTED_VIOLATIONS) {
            violations.add(String.format(
                java.util.Locale.ROOT,
                "call %d attempt %d started %.1f ms after attempt %d closed %s with a pushback"
                    + " of %d ms",
                next.call(),
                next.number() + 1,
                (next.startNanos() - before.closeNanos()) / 1e6,
                before.number() + 1,
                before.status(),
                before.pushbackMillis()));
          }
        }
      }
    }
    return new PushbackCheck(
        byCall.size(), recorded.size(), checked, minSlack, violations, early, finals);
  }
}
