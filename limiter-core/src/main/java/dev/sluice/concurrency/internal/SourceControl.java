package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;

/** What a local limiter's limit source may see and do; see {@link LimitSource.Control}. */
final class SourceControl implements LimitSource.Control {

  private final BoundedQueueLimiter engine;

  SourceControl(BoundedQueueLimiter engine) {
    this.engine = engine;
  }

  @Override
  public String name() {
    return engine.name();
  }

  @Override
  public NanoClock clock() {
    return engine.clock;
  }

  @Override
  public Scheduler scheduler() {
    return engine.scheduler;
  }

  @Override
  public int inFlight() {
    return BoundedQueueLimiter.inFlight(engine.state);
  }

  @Override
  public int queued() {
    return BoundedQueueLimiter.queued(engine.state);
  }

  @Override
  public void limitChanged() {
    engine.grantWhileFree();
  }
}
