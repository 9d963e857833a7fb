package dev.sluice.concurrency;

import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;

/** A {@link LimitSource.Control} whose load the test sets by hand, on virtual time. */
public final class StubControl implements LimitSource.Control {

  public final VirtualTime time = new VirtualTime();
  public int inFlight;
  public int queued;
  public int limitChanges;

  @Override
  public String name() {
    return "stub";
  }

  @Override
  public NanoClock clock() {
    return time;
  }

  @Override
  public Scheduler scheduler() {
    return time;
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public int queued() {
    return queued;
  }

  @Override
  public void limitChanged() {
    limitChanges++;
  }
}
