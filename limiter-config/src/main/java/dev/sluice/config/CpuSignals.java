package dev.sluice.config;

import dev.sluice.concurrency.limit.CpuSignal;

/**
 * The CPU signals behind {@code cpu-source=machine} and {@code process}: the JVM's own, or one
 * injected by the door (the Javalin plugin's {@code cpuSignal}: a simulated machine in tests).
 */
public record CpuSignals(CpuSignal machine, CpuSignal process) {

  public static final CpuSignals JVM = new CpuSignals(CpuSignal.machine(), CpuSignal.process());
}
