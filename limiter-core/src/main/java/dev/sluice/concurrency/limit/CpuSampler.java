package dev.sluice.concurrency.limit;

/**
 * Where a {@link CpuLimit} reads the CPU: a public strategy, so tests feed it a simulated machine.
 * {@link #machine()} and {@link #process()} read the JVM's own figures.
 *
 * <p>The limit reads it once per controller tick, on its scheduler, never on the request path. A
 * sampler is stateful (each read covers the time since the previous one): one instance per limit.
 */
@FunctionalInterface
public interface CpuSampler {

  /**
   * CPU utilisation since the previous call, from 0 (idle) to 1 (every core busy); {@link
   * Double#NaN} when it cannot be measured (the limit then holds its value).
   */
  double sample();

  /**
   * The whole machine's CPU as the JVM sees it: {@code
   * com.sun.management.OperatingSystemMXBean#getCpuLoad()}, which inside a container reads the
   * container's cgroup usage against its CPU quota. Includes other processes on the machine, which
   * is what "keep the node at 70%" means. The JVM keeps one previous reading for every caller, so
   * two limits sampling it at once each see part of the interval: still a correct utilisation,
   * over a shorter window. NaN where the JVM has no such bean.
   */
  static CpuSampler machine() {
    return new MachineCpuSampler();
  }

  /**
   * This process's CPU only: the JVM's process CPU time consumed since the previous call / (cores x
   * wall time), cores being {@link Runtime#availableProcessors()} (container-aware). Ignores
   * neighbours; use it when other work on the machine must not shrink this limit.
   */
  static CpuSampler process() {
    return new ProcessCpuSampler();
  }
}
