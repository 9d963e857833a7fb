package dev.sluice.loadtest.monday;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the replay's clients saw, counted as it happens from many threads (each method takes the
 * tally's lock: a few hundred calls a second, never on a path that is timed).
 */
public final class MondayTally {

  /** The three kinds of traffic of the scenario. */
  enum Kind {
    MAINTENANCE,
    RESCUE,
    HISTORY
  }

  private final Map<Kind, Map<String, Long>> tries = new TreeMap<>();
  private final List<Double> completions = new ArrayList<>();
  private final List<Double> historyMillis = new ArrayList<>();
  private final List<Double> rescueWaitMillis = new ArrayList<>();
  private final List<Double> rescueMillis = new ArrayList<>();
  private long rescueJobs;
  private long rescueServed;

  /** One try's outcome: an HTTP status, or {@code reset} / {@code timeout} when no answer came. */
  synchronized void tried(Kind kind, String outcome) {
    tries.computeIfAbsent(kind, k -> new TreeMap<>()).merge(outcome, 1L, Long::sum);
  }

  /** A maintenance re-transcode answered 200, {@code second} after the start. */
  synchronized void completed(double second) {
    completions.add(second);
  }

  /** A history lookup ended (answered or not) {@code millis} after it was due. */
  synchronized void history(double millis) {
    historyMillis.add(millis);
  }

  /** A rescue job was started. */
  synchronized void rescueStarted() {
    rescueJobs++;
  }

  /** A rescue job was served: its wait in the service's queue and its time from due to answer. */
  synchronized void rescueServed(double queuedMillis, double millis) {
    rescueServed++;
    rescueWaitMillis.add(queuedMillis);
    rescueMillis.add(millis);
  }

  synchronized Map<String, Long> tries(Kind kind) {
    return new TreeMap<>(tries.getOrDefault(kind, Map.of()));
  }

  /** Tries of every kind answered {@code status}. */
  synchronized long count(String status) {
    return tries.values().stream().mapToLong(m -> m.getOrDefault(status, 0L)).sum();
  }

  synchronized List<Double> completions() {
    return List.copyOf(completions);
  }

  synchronized List<Double> historyMillis() {
    return List.copyOf(historyMillis);
  }

  synchronized List<Double> rescueWaitMillis() {
    return List.copyOf(rescueWaitMillis);
  }

  synchronized List<Double> rescueMillis() {
    return List.copyOf(rescueMillis);
  }

  synchronized long rescueJobs() {
    return rescueJobs;
  }

  synchronized long rescueServed() {
    return rescueServed;
  }
}
