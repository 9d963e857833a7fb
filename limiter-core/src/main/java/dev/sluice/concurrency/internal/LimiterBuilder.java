package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.store.PermitStore;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/** The one {@link ConcurrencyLimiter.Builder}; validates every value as it is set. */
public final class LimiterBuilder implements ConcurrencyLimiter.Builder {

  final String name;
  /** Everything but the runtime pieces below. */
  LimiterSpec.Builder spec = LimiterSpec.custom();

  NanoClock clock = NanoClock.system();
  Scheduler scheduler = Scheduler.system();
  Executor executor = ForkJoinPool.commonPool();
  /** Null when none was configured, so the limiter can skip listener calls and time less. */
  ConcurrencyListener listener;
  /** Null: a local limiter; else permits are leases in this store, shared by every node. */
  PermitStore permitStore;

  public LimiterBuilder(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
    }
    this.name = name;
  }

  public static int requireAtLeast(String setting, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(setting + " must be >= " + min + " but was " + value);
    }
    return value;
  }

  @Override
  public LimiterBuilder maxConcurrency(int n) {
    spec.maxConcurrency(n);
    return this;
  }

  @Override
  public LimiterBuilder maxQueue(int n) {
    spec.maxQueue(n);
    return this;
  }

  @Override
  public LimiterBuilder queueTimeout(Duration d) {
    spec.queueTimeout(d);
    return this;
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
  public LimiterBuilder limitSource(LimitSource source) {
    spec.limit(new GivenLimit(Objects.requireNonNull(source, "limitSource must not be null")));
    return this;
  }

  @Override
  public LimiterBuilder waitQueue(WaitQueue queue) {
    spec.queue(GivenQueue.of(Objects.requireNonNull(queue, "waitQueue must not be null")));
    return this;
  }

  @Override
  public LimiterBuilder rejectEarly(boolean on) {
    spec.rejectEarly(on);
    return this;
  }

  @Override
  public LimiterBuilder permitStore(PermitStore store) {
    this.permitStore = Objects.requireNonNull(store, "permitStore must not be null");
    return this;
  }

  @Override
  public LimiterBuilder leaseTime(Duration d) {
    spec.leaseTime(d);
    return this;
  }

  @Override
  public LimiterBuilder queueDelayTarget(Duration target) {
    spec.queueDelayTarget(target);
    return this;
  }

  @Override
  public LimiterBuilder spec(LimiterSpec spec) {
    this.spec = LimiterSpec.from(Objects.requireNonNull(spec, "spec must not be null"));
    return this;
  }

  @Override
  public ConcurrencyLimiter build() {
    LimiterSpec s = spec.build();
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
