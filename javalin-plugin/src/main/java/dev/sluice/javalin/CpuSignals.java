package dev.sluice.javalin;

import dev.sluice.concurrency.limit.CpuSignal;

/**
 * The CPU signals behind {@code cpu-source=machine} and {@code process}: the JVM's own, or one
 * injected through {@link SluiceConfig#cpuSignal} (a simulated machine in tests).
 */
record CpuSignals(CpuSignal machine, CpuSignal process) {

  static final CpuSignals JVM = new CpuSignals(CpuSignal.machine(), CpuSignal.process());
}
