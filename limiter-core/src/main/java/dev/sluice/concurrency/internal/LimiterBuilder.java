package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
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
  int maxConcurrency = ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY;
  int maxQueue = ConcurrencyLimiter.DEFAULT_MAX_QUEUE;
  Duration queueTimeout = ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT;
  NanoClock clock = NanoClock.system();
  Scheduler scheduler = Scheduler.system();
  Executor executor = ForkJoinPool.commonPool();
  /** Null when none was configured, so the limiter can skip listener calls and time less. */
  ConcurrencyListener listener;
  /** Null: a fixed limit of {@link #maxConcurrency}. */
  LimitSource limitSource;
  /** Null: FIFO. */
  WaitQueue waitQueue;
  boolean rejectEarly;
  /** Null: a local limiter; else permits are leases in this store, shared by every node. */
  PermitStore permitStore;
  Duration leaseTime = ConcurrencyLimiter.DEFAULT_LEASE_TIME;

  public LimiterBuilder(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
    }
    this.name = name;
  }

  public static int requireAtLeast(String setting, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(
          setting + " must be >= " + min + " but was " + value);
    }
    return value;
  }

  @Override
  public LimiterBuilder maxConcurrency(int n) {
    this.maxConcurrency = requireAtLeast("maxConcurrency", n, 1);
    return this;
  }

  @Override
  public LimiterBuilder maxQueue(int n) {
    this.maxQueue = requireAtLeast("maxQueue", n, 0);
    return this;
  }

  @Override
  public LimiterBuilder queueTimeout(Duration d) {
    Objects.requireNonNull(d, "queueTimeout must not be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("queueTimeout must be > 0 but was " + d);
    }
    this.queueTimeout = d;
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
    this.limitSource = Objects.requireNonNull(source, "limitSource must not be null");
    return this;
  }

  @Override
  public LimiterBuilder waitQueue(WaitQueue queue) {
    this.waitQueue = Objects.requireNonNull(queue, "waitQueue must not be null");
    return this;
  }

  @Override
  public LimiterBuilder rejectEarly(boolean on) {
    this.rejectEarly = on;
    return this;
  }

  @Override
  public LimiterBuilder permitStore(PermitStore store) {
    this.permitStore = Objects.requireNonNull(store, "permitStore must not be null");
    return this;
  }

  @Override
  public LimiterBuilder leaseTime(Duration d) {
    Objects.requireNonNull(d, "leaseTime must not be null");
    if (d.toMillis() < 1) {
      throw new IllegalArgumentException("leaseTime must be at least 1ms but was " + d);
    }
    this.leaseTime = d;
    return this;
  }

  @Override
  public ConcurrencyLimiter build() {
    LimitSource source = limitSource == null ? LimitSource.fixed(maxConcurrency) : limitSource;
    WaitQueue queue = waitQueue == null ? new FifoWaitQueue() : waitQueue;
    if (permitStore != null) {
      return new GlobalLimiter(this, source, queue);
    }
    return new BoundedQueueLimiter(this, source, queue);
  }

  /** The same settings without the listener: the local stage of a {@link GlobalLimiter}. */
  LimiterBuilder withoutListener() {
    LimiterBuilder copy = new LimiterBuilder(name);
    copy.maxConcurrency = maxConcurrency;
    copy.maxQueue = maxQueue;
    copy.queueTimeout = queueTimeout;
    copy.clock = clock;
    copy.scheduler = scheduler;
    copy.executor = executor;
    return copy;
  }

  /** {@code queueTimeout} in nanoseconds, saturated: a timeout of centuries means "never". */
  long queueTimeoutNanos() {
    try {
      return queueTimeout.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }
}
