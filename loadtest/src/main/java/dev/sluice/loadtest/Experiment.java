package dev.sluice.loadtest;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * One thing the load test runs, chosen with {@code --scenario NAME}: an open-loop traffic against
 * one service, a comparison of set-ups on fresh services, or a measurement. {@link LoadTest} runs
 * whichever the options name and knows none of them; a new one is a package of its own and a line
 * in {@link Experiments}.
 */
public interface Experiment {

  /** The name {@code --scenario} selects it by, e.g. {@code monday-maintenance}. */
  String id();

  /**
   * The options only this experiment reads, e.g. {@code --mix}. Given with another scenario they
   * are refused, naming the scenarios that read them, rather than silently ignored.
   */
  default Set<String> ownOptions() {
    return Set.of();
  }

  /** How long arrivals are sent when {@code --duration} is not given (per run, for a comparison). */
  default Duration defaultDuration() {
    return Duration.ofSeconds(60);
  }

  /**
   * Refuses a command line this experiment cannot run with; called when the options are parsed,
   * so a mistake shows before any service starts.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  default void check(Options options) {}

  /**
   * Runs it, writing into {@code options.out()} (which exists), and returns the path of its report.
   */
  Path run(Options options) throws Exception;
}
