package dev.sluice.concurrency.limit;

import java.util.Objects;
import java.util.function.BiFunction;

/**
 * What kind of limit a limiter has, as configuration: an immutable value that builds a fresh
 * {@link LimitSource} each time a limiter is built or moves to another kind of limit. Two specs
 * that are equal build equivalent sources, so reconfiguring with an equal spec changes nothing.
 *
 * <ul>
 *   <li>{@link #fixed()}: the limit is {@code maxConcurrency}.
 *   <li>{@link #cpu}: {@link CpuLimit}, holding a CPU target; {@code maxConcurrency} is the ceiling.
 *   <li>{@link #latency}: {@link LatencyLimit}, a gradient on service time; likewise.
 *   <li>{@link #of}: your own strategy, e.g. an {@link AdaptiveLimit} subclass.
 * </ul>
 */
public interface LimitSpec {

  /** Short name for status and logs: {@code fixed}, {@code cpu}, {@code latency}, or yours. */
  String kind();

  /** Whether the limit moves by itself; {@code maxConcurrency} is then its ceiling. */
  boolean adaptive();

  /** The lower bound of an adaptive limit (1 for a fixed one). */
  default int minConcurrency() {
    return 1;
  }

  /**
   * A new source for one limiter.
   *
   * @param maxConcurrency the limit of a fixed source, the ceiling of an adaptive one
   * @param startAt the limit to start from (a reconfiguration keeps the limit in force), or 0 for
   *     the strategy's own initial limit
   */
  LimitSource newSource(int maxConcurrency, int startAt);

  /** The limit is {@code maxConcurrency}, changed only by reconfiguration. The default. */
  static LimitSpec fixed() {
    return Fixed.INSTANCE;
  }

  /** Hold the machine's CPU ({@link CpuSignal#machine()}) at {@code targetCpu}, at least 1 job. */
  static Cpu cpu(double targetCpu) {
    return new Cpu(targetCpu, CpuSignal.machine(), 1);
  }

  /**
   * Hold {@code signal}'s CPU at {@code targetCpu} (strictly between 0 and 1), with at least
   * {@code minConcurrency} jobs.
   */
  static Cpu cpu(double targetCpu, CpuSignal signal, int minConcurrency) {
    return new Cpu(targetCpu, signal, minConcurrency);
  }

  /** Grow while service time stays near its no-load baseline, with at least {@code min} jobs. */
  static Latency latency(int minConcurrency) {
    return new Latency(minConcurrency);
  }

  /**
   * Your own strategy: {@code factory} gets {@code (maxConcurrency, startAt)} as {@link
   * #newSource} does and returns a new source each time. Equal only to itself.
   *
   * <pre>{@code
   * LimitSpec aimd = LimitSpec.of("aimd", (max, start) -> new AimdLimit(max, start));
   * }</pre>
   */
  static LimitSpec of(String kind, BiFunction<Integer, Integer, ? extends LimitSource> factory) {
    return new Custom(kind, factory);
  }

  /** The fixed limit. */
  enum Fixed implements LimitSpec {
    INSTANCE;

    @Override
    public String kind() {
      return "fixed";
    }

    @Override
    public boolean adaptive() {
      return false;
    }

    @Override
    public LimitSource newSource(int maxConcurrency, int startAt) {
      return LimitSource.fixed(maxConcurrency);
    }

    @Override
    public String toString() {
      return "fixed";
    }
  }

  /**
   * A CPU target.
   *
   * @param targetCpu utilisation to hold, strictly between 0 and 1
   * @param signal where the CPU is read; every limit reading one signal gets its own sampler
   * @param minConcurrency lower bound, at least 1
   */
  record Cpu(double targetCpu, CpuSignal signal, int minConcurrency) implements LimitSpec {
    /** Checks the values, naming the one that is wrong. */
    public Cpu {
      if (!(targetCpu > 0 && targetCpu < 1)) {
        throw new IllegalArgumentException("targetCpu must be > 0 and < 1 but was " + targetCpu);
      }
      Objects.requireNonNull(signal, "signal must not be null");
      AdaptiveLimit.requireAtLeast("minConcurrency", minConcurrency, 1);
    }

    @Override
    public String kind() {
      return "cpu";
    }

    @Override
    public boolean adaptive() {
      return true;
    }

    @Override
    public LimitSource newSource(int maxConcurrency, int startAt) {
      CpuLimit.Builder b = CpuLimit.builder()
          .targetCpu(targetCpu)
          .sampler(signal.newSampler())
          .minLimit(Math.min(minConcurrency, maxConcurrency))
          .maxLimit(maxConcurrency);
      return (startAt > 0 ? b.initialLimit(startAt) : b).build();
    }

    @Override
    public String toString() {
      return "cpu(target " + targetCpu + ", " + signal + ", min " + minConcurrency + ")";
    }
  }

  /**
   * A latency gradient.
   *
   * @param minConcurrency lower bound, at least 1
   */
  record Latency(int minConcurrency) implements LimitSpec {
    /** Checks the bound. */
    public Latency {
      AdaptiveLimit.requireAtLeast("minConcurrency", minConcurrency, 1);
    }

    @Override
    public String kind() {
      return "latency";
    }

    @Override
    public boolean adaptive() {
      return true;
    }

    @Override
    public LimitSource newSource(int maxConcurrency, int startAt) {
      LatencyLimit.Builder b = LatencyLimit.builder()
          .minLimit(Math.min(minConcurrency, maxConcurrency))
          .maxLimit(maxConcurrency);
      return (startAt > 0 ? b.initialLimit(startAt) : b).build();
    }

    @Override
    public String toString() {
      return "latency(min " + minConcurrency + ")";
    }
  }

  /** A user's strategy; equal only to itself. */
  final class Custom implements LimitSpec {
    private final String kind;
    private final BiFunction<Integer, Integer, ? extends LimitSource> factory;

    private Custom(String kind, BiFunction<Integer, Integer, ? extends LimitSource> factory) {
      if (kind == null || kind.isBlank()) {
        throw new IllegalArgumentException("kind must not be blank but was '" + kind + "'");
      }
      this.kind = kind;
      this.factory = Objects.requireNonNull(factory, "factory must not be null");
    }

    @Override
    public String kind() {
      return kind;
    }

    @Override
    public boolean adaptive() {
      return true;
    }

    @Override
    public LimitSource newSource(int maxConcurrency, int startAt) {
      return Objects.requireNonNull(
          factory.apply(maxConcurrency, startAt),
          "the factory of limit '" + kind + "' returned null");
    }

    @Override
    public String toString() {
      return kind;
    }
  }
}
