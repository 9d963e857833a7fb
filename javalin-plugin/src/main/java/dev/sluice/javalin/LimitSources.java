package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.CpuSampler;
import dev.sluice.concurrency.limit.LatencyLimit;
import dev.sluice.concurrency.limit.LimitSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core {@link LimitSource} a limiter's properties ask for: {@code limit} with {@code
 * target-cpu}, {@code cpu-source}, {@code min-concurrency} and {@code max-concurrency} (the
 * ceiling of an adaptive limit).
 *
 * <p>Reload: a changed strategy or setting builds a new source and the running limiter switches to
 * it ({@link ConcurrencyLimiter#setLimitSource}); permits held stay valid and count against the new
 * limit, and the new source starts from the limit in force, so a switch does not jump. Rebuilding
 * the limiter instead was rejected: for a moment two limiters would each admit up to their limit.
 */
final class LimitSources {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  private LimitSources() {}

  /** Sets the source on a new limiter; a fixed limit keeps the builder's default. */
  static void applyTo(ConcurrencyLimiter.Builder builder, LimiterConfig config) {
    if (config.get(LimiterKeys.LIMIT) != LimiterKeys.LimitKind.FIXED) {
      builder.limitSource(of(config, 0));
    }
  }

  /**
   * A changed {@code max-concurrency}: the limit of a fixed source, the ceiling of an adaptive one.
   * Not applied when the same reload turns a fixed limit adaptive: raising the fixed limit first
   * would admit a burst before the new source (which brings the new ceiling) takes over.
   */
  static void reloadCeiling(ConcurrencyLimiter limiter, int max, LimiterConfig next) {
    boolean adaptiveNext = next.get(LimiterKeys.LIMIT) != LimiterKeys.LimitKind.FIXED;
    if (adaptiveNext && !limiter.snapshot().limitState().adaptive()) {
      return;
    }
    limiter.setMaxConcurrency(max);
  }

  /** Moves a running limiter to the source {@code next} asks for. */
  static void reload(ConcurrencyLimiter limiter, LimiterConfig next) {
    try {
      limiter.setLimitSource(of(next, limiter.snapshot().limit()));
    } catch (UnsupportedOperationException e) {
      log.warn("Sluice limiter '{}': {}; the new limit takes effect after a restart",
          next.name(), e.getMessage());
    }
  }

  /**
   * The source for {@code config}.
   *
   * @param startAt the limit to start from (a reload keeps the limit in force); 0: the strategy's
   *     own initial limit
   */
  static LimitSource of(LimiterConfig config, int startAt) {
    int max = config.maxConcurrency();
    int min = Math.min(config.get(LimiterKeys.MIN_CONCURRENCY), max);
    switch (config.get(LimiterKeys.LIMIT)) {
      case CPU: {
        CpuLimit.Builder b = CpuLimit.builder()
            .targetCpu(config.get(LimiterKeys.TARGET_CPU))
            .sampler(config.get(LimiterKeys.CPU_SOURCE) == LimiterKeys.CpuSource.PROCESS
                ? CpuSampler.process() : CpuSampler.machine())
            .minLimit(min)
            .maxLimit(max);
        return (startAt > 0 ? b.initialLimit(startAt) : b).build();
      }
      case LATENCY: {
        LatencyLimit.Builder b = LatencyLimit.builder().minLimit(min).maxLimit(max);
        return (startAt > 0 ? b.initialLimit(startAt) : b).build();
      }
      default:
        return LimitSource.fixed(max);
    }
  }
}
