package dev.sluice.concurrency;

import dev.sluice.concurrency.limit.LimitState;
import java.time.Duration;
import java.util.Objects;

/**
 * A point-in-time view of a limiter for metrics and status pages. Gauges ({@link #inFlight()},
 * {@link #queued()}, {@link #shutdown()}) are read together from one atomic word, so they are
 * consistent with each other; the counters are monotonic sums read one after another and may be a
 * few events apart from the gauges under load.
 *
 * <p>Queue-wait statistics cover every caller that left the queue, whatever the outcome; service
 * time is how long released permits were held. {@link #spec()} is the configuration in force
 * (after any {@link ConcurrencyLimiter#reconfigure}), {@link #limitState()} what the limit
 * decides from.
 *
 * <p>A class with a builder rather than a record, so a new figure is a new accessor, not a new
 * constructor argument that breaks every caller.
 */
public final class ConcurrencySnapshot {

  private final String name;
  private final LimiterSpec spec;
  private final LimitState limitState;
  private final int inFlight;
  private final int queued;
  private final boolean shutdown;
  private final long admitted;
  private final long queuedTotal;
  private final long rejectedQueueFull;
  private final long rejectedQueueTimeout;
  private final long cancelled;
  private final long rejectedShutdown;
  private final long queueWaitCount;
  private final long queueWaitTotalNanos;
  private final long queueWaitMaxNanos;
  private final long serviceCount;
  private final long serviceTotalNanos;
  private final long serviceMaxNanos;
  private final long rejectedLate;
  private final long rejectedPredictedWait;
  private final long rejectedStandingQueue;

  private ConcurrencySnapshot(Builder b) {
    this.name = b.name;
    this.spec = b.spec;
    this.limitState = b.limitState;
    this.inFlight = b.inFlight;
    this.queued = b.queued;
    this.shutdown = b.shutdown;
    this.admitted = b.admitted;
    this.queuedTotal = b.queuedTotal;
    this.rejectedQueueFull = b.rejectedQueueFull;
    this.rejectedQueueTimeout = b.rejectedQueueTimeout;
    this.cancelled = b.cancelled;
    this.rejectedShutdown = b.rejectedShutdown;
    this.queueWaitCount = b.queueWaitCount;
    this.queueWaitTotalNanos = b.queueWaitTotalNanos;
    this.queueWaitMaxNanos = b.queueWaitMaxNanos;
    this.serviceCount = b.serviceCount;
    this.serviceTotalNanos = b.serviceTotalNanos;
    this.serviceMaxNanos = b.serviceMaxNanos;
    this.rejectedLate = b.rejectedLate;
    this.rejectedPredictedWait = b.rejectedPredictedWait;
    this.rejectedStandingQueue = b.rejectedStandingQueue;
  }

  /** For implementations of {@link ConcurrencyLimiter}: a snapshot of {@code spec}. */
  public static Builder builder(String name, LimiterSpec spec, LimitState limitState) {
    return new Builder(name, spec, limitState);
  }

  /** The limiter's name. */
  public String name() {
    return name;
  }

  /** The configuration in force. */
  public LimiterSpec spec() {
    return spec;
  }

  /** The current limit (for an adaptive limit, what it has learnt). */
  public int limit() {
    return limitState.limit();
  }

  /** Waiting slots in force. */
  public int maxQueue() {
    return spec.maxQueue();
  }

  /** Queue timeout in force. */
  public Duration queueTimeout() {
    return spec.queueTimeout();
  }

  /** Where the limit comes from and what it decides from. */
  public LimitState limitState() {
    return limitState;
  }

  /** Permits held now (for a global limiter: this node's leases). */
  public int inFlight() {
    return inFlight;
  }

  /** Callers waiting now. */
  public int queued() {
    return queued;
  }

  /** Whether the limiter was shut down. */
  public boolean shutdown() {
    return shutdown;
  }

  /** Permits granted, ever. */
  public long admitted() {
    return admitted;
  }

  /** Callers that had to wait, ever. */
  public long queuedTotal() {
    return queuedTotal;
  }

  /** Rejected as queue-full (at arrival, by key cap, displacement or predicted wait). */
  public long rejectedQueueFull() {
    return rejectedQueueFull;
  }

  /** Timed out in the queue. */
  public long rejectedQueueTimeout() {
    return rejectedQueueTimeout;
  }

  /** Left the queue by cancelling (e.g. the client hung up). */
  public long cancelled() {
    return cancelled;
  }

  /** Rejected because the limiter shut down. */
  public long rejectedShutdown() {
    return rejectedShutdown;
  }

  /**
   * Of {@link #rejectedQueueFull()}, those answered after they had queued (displaced, predicted
   * wait at a re-check, shed from a standing queue): late answers, which a client waited for.
   */
  public long rejectedLate() {
    return rejectedLate;
  }

  /** Of {@link #rejectedQueueFull()}, those whose predicted wait passed their timeout. */
  public long rejectedPredictedWait() {
    return rejectedPredictedWait;
  }

  /** Of {@link #rejectedQueueFull()}, those shed from a standing queue. */
  public long rejectedStandingQueue() {
    return rejectedStandingQueue;
  }

  /** Callers that left the queue, whatever the outcome. */
  public long queueWaitCount() {
    return queueWaitCount;
  }

  /** Their total wait. */
  public long queueWaitTotalNanos() {
    return queueWaitTotalNanos;
  }

  /** The longest wait. */
  public long queueWaitMaxNanos() {
    return queueWaitMaxNanos;
  }

  /** Permits timed (all, or a sample; see the limiter). */
  public long serviceCount() {
    return serviceCount;
  }

  /** Their total holding time. */
  public long serviceTotalNanos() {
    return serviceTotalNanos;
  }

  /** The longest holding time. */
  public long serviceMaxNanos() {
    return serviceMaxNanos;
  }

  @Override
  public String toString() {
    return "ConcurrencySnapshot[" + name + ", limit=" + limit() + ", inFlight=" + inFlight
        + ", queued=" + queued + ", admitted=" + admitted + ", spec=" + spec + "]";
  }

  /** Fills a snapshot; for implementations of {@link ConcurrencyLimiter}. */
  public static final class Builder {
    private final String name;
    private final LimiterSpec spec;
    private final LimitState limitState;
    private int inFlight;
    private int queued;
    private boolean shutdown;
    private long admitted;
    private long queuedTotal;
    private long rejectedQueueFull;
    private long rejectedQueueTimeout;
    private long cancelled;
    private long rejectedShutdown;
    private long queueWaitCount;
    private long queueWaitTotalNanos;
    private long queueWaitMaxNanos;
    private long serviceCount;
    private long serviceTotalNanos;
    private long serviceMaxNanos;
    private long rejectedLate;
    private long rejectedPredictedWait;
    private long rejectedStandingQueue;

    private Builder(String name, LimiterSpec spec, LimitState limitState) {
      this.name = Objects.requireNonNull(name, "name must not be null");
      this.spec = Objects.requireNonNull(spec, "spec must not be null");
      this.limitState = Objects.requireNonNull(limitState, "limitState must not be null");
    }

    /** The gauges, read together. */
    public Builder gauges(int inFlight, int queued, boolean shutdown) {
      this.inFlight = inFlight;
      this.queued = queued;
      this.shutdown = shutdown;
      return this;
    }

    /** The outcome counters. */
    public Builder outcomes(
        long admitted,
        long queuedTotal,
        long rejectedQueueFull,
        long rejectedQueueTimeout,
        long cancelled,
        long rejectedShutdown) {
      this.admitted = admitted;
      this.queuedTotal = queuedTotal;
      this.rejectedQueueFull = rejectedQueueFull;
      this.rejectedQueueTimeout = rejectedQueueTimeout;
      this.cancelled = cancelled;
      this.rejectedShutdown = rejectedShutdown;
      return this;
    }

    /** Queue-wait statistics. */
    public Builder queueWait(long count, long totalNanos, long maxNanos) {
      this.queueWaitCount = count;
      this.queueWaitTotalNanos = totalNanos;
      this.queueWaitMaxNanos = maxNanos;
      return this;
    }

    /** Service-time statistics. */
    public Builder service(long count, long totalNanos, long maxNanos) {
      this.serviceCount = count;
      this.serviceTotalNanos = totalNanos;
      this.serviceMaxNanos = maxNanos;
      return this;
    }

    /** Queue-full answers given after queueing. */
    public Builder late(long rejectedLate) {
      this.rejectedLate = rejectedLate;
      return this;
    }

    /** Queue-full answers by predicted wait and from a standing queue. */
    public Builder reasons(long predictedWait, long standingQueue) {
      this.rejectedPredictedWait = predictedWait;
      this.rejectedStandingQueue = standingQueue;
      return this;
    }

    /** The snapshot. */
    public ConcurrencySnapshot build() {
      return new ConcurrencySnapshot(this);
    }
  }
}
