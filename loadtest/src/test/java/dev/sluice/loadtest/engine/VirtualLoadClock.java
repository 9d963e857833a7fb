package dev.sluice.loadtest.engine;

import dev.sluice.time.VirtualTime;

/** The shared virtual time, seen as the load generator's clock. */
final class VirtualLoadClock implements LoadClock {

  final VirtualTime time = new VirtualTime();

  @Override
  public long nanoTime() {
    return time.nanoTime();
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    time.schedule(task, delayNanos);
  }
}
