package dev.sluice.concurrency.limit;

/**
 * Where a {@link CpuLimit} reads the CPU: a public strategy, so tests feed it a simulated machine.
 * {@link #machine()} and {@link #process()} read the JVM's own figures.
 *
 * <p>The limit reads it once per controller tick, on its scheduler, never on the request path. A
 * sampler is stateful (each read covers the time since the previous one): one instance per limit.
 * Samplers of one {@link CpuSignal} do not disturb each other.
 */
@FunctionalInterface
public interface CpuSampler {

  /**
   * CPU utilisation since the previous call, from 0 (idle) to 1 (every core busy); {@link
   * Double#NaN} when it cannot be measured (the limit then holds its value).
   */
  double sample();

  /** A reader of {@link CpuSignal#machine()}, the JVM's one machine signal. */
  static CpuSampler machine() {
    return CpuSignal.machine().newSampler();
  }

  /** A reader of {@link CpuSignal#process()}, this process's CPU. */
  static CpuSampler process() {
    return CpuSignal.process().newSampler();
  }
}
