package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.store.PermitStore;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The one {@link ConcurrencyLimiter.Builder}: a {@link LimiterSpec} (validated when it was built)
 * and the runtime pieces, each checked as it is set.
 */
final class LimiterBuilder implements ConcurrencyLimiter.Builder {

  final String name;
  /** Every setting; the fields below are the runtime pieces the limiter runs on. */
  LimiterSpec spec = LimiterSpec.ofDefaults();

  NanoClock clock = NanoClock.system();
  Scheduler scheduler = Scheduler.system();
  Executor executor = ForkJoinPool.commonPool();
  /** Null when none was configured, so the limiter can skip listener calls and time less. */
  ConcurrencyListener listener;
  /** Null: a local limiter; else permits are leases in this store, shared by every node. */
  PermitStore permitStore;

  LimiterBuilder(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
    }
    this.name = name;
  }

  @Override
  public LimiterBuilder clock(NanoClock c) {
    this.clock = Objects.requireNonNull(c, "clock must not be null");
    return this;
  }

  @Override
  public LimiterBuilder scheduler(Scheduler s) {
    this.scheduler = Objects.requireNonNull(s, "scheduler must not be null");
    return this;
  }

  @Override
  public LimiterBuilder executor(Executor e) {
    this.executor = Objects.requireNonNull(e, "executor must not be null");
    return this;
  }

  @Override
  public LimiterBuilder listener(ConcurrencyListener l) {
    this.listener = Objects.requireNonNull(l, "listener must not be null");
    return this;
  }

  @Override
  public LimiterBuilder permitStore(PermitStore store) {
    this.permitStore = Objects.requireNonNull(store, "permitStore must not be null");
    return this;
  }

  @Override
  public LimiterBuilder spec(LimiterSpec spec) {
    this.spec = Objects.requireNonNull(spec, "spec must not be null");
    return this;
  }

  @Override
  public ConcurrencyLimiter build() {
    LimiterSpec s = spec;
    LimitSource source = s.limit().newSource(s.maxConcurrency(), 0);
    WaitQueue queue = s.queue().newQueue();
    if (permitStore != null) {
      return new GlobalLimiter(this, s, source, queue);
    }
    return new BoundedQueueLimiter(this, s, source, queue);
  }

  /** The same runtime pieces without the listener: the local stage of a {@link GlobalLimiter}. */
  LimiterBuilder withoutListener() {
    LimiterBuilder copy = new LimiterBuilder(name);
    copy.clock = clock;
    copy.scheduler = scheduler;
    copy.executor = executor;
    return copy;
  }
}
