package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.scenario.Traffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The two scenarios about who gets the transcode queue when it is full, each run once per service
 * set-up ({@link Variant}) with the same plan and seed, see {@link VariantComparison}.
 */
public enum TenantScenario implements Traffic, Experiment {

  /**
   * One greedy maintenance host among 32 sends 10x what each other one sends, at twice the demo
   * limiter's capacity in all, beside the viewers and the critical rescue job ({@link
   * GreedyHostTraffic}).
   */
  GREEDY_HOST(2.0),
  /**
   * Sheddable jobs at three times the demo limiter's capacity plus a trickle of critical ones
   * ({@link PriorityTraffic}).
   */
  PRIORITY(3.0);

  private final double capacityFactor;

  TenantScenario(double capacityFactor) {
    this.capacityFactor = capacityFactor;
  }

  /** The command-line id: {@code greedy-host} or {@code priority}. */
  @Override
  public String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--variant");
  }

  /** A bad {@code --variant} spec fails here, naming itself. */
  @Override
  public void check(Options options) {
    Variant.select(this, options.variants());
  }

  @Override
  public Path run(Options options) throws Exception {
    return VariantComparison.run(options, this, Variant.select(this, options.variants()));
  }

  /**
   * Both are about the order of a full queue, so they are sized from the permits the demo gives its
   * transcode limiter on auto ({@code max(1, round(0.7 x cores))}), not from the cores.
   */
  @Override
  public double defaultRate(int cores, int cpuMillis) {
    return capacityFactor * Math.max(1, Math.round(0.7 * cores)) * 1000.0 / cpuMillis;
  }

  @Override
  public List<TrafficStream> streams(double transcodeRate, int cpuMillis, Duration duration) {
    return this == GREEDY_HOST
        ? GreedyHostTraffic.streams(transcodeRate, cpuMillis)
        : PriorityTraffic.streams(transcodeRate, cpuMillis);
  }
}
