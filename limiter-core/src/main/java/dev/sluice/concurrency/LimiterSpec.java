package dev.sluice.concurrency;

import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything that configures one concurrency limiter, as one immutable value: built by code and
 * by properties alike, validated once, handed to {@link ConcurrencyLimiter#of} (or {@link
 * ConcurrencyLimiter.Builder#spec}) and to {@link ConcurrencyLimiter#reconfigure}. It is the one
 * way to configure a limiter: no builder or setter elsewhere sets these values. The runtime pieces
 * (clock, scheduler, executor, listener, store) are not part of it: they do not change while a
 * limiter lives, and {@link ConcurrencyLimiter.Builder} sets them.
 *
 * <p>A strategy of your own is one class and rides in the spec like the built-in ones: a {@link
 * dev.sluice.concurrency.limit.LimitSource} through {@link LimitSpec#of}, a {@link WaitQueue}
 * through {@link QueueSpec#of}. {@link ConcurrencyLimiter#reconfigure} says what a change of
 * either does.
 *
 * <pre>{@code
 * LimiterSpec spec = LimiterSpec.custom()
 *     .maxConcurrency(8).maxQueue(32).queueTimeout(Duration.ofSeconds(60))
 *     .limit(LimitSpec.cpu(0.70))                     // adaptive; 8 is the ceiling
 *     .queue(QueueSpec.fair(FairQueueConfig.DEFAULT))
 *     .rejectEarly(true)
 *     .build();
 * ConcurrencyLimiter limiter = ConcurrencyLimiter.of("transcode", spec);
 * Reconfiguration r = limiter.reconfigure(LimiterSpec.from(spec).maxConcurrency(4).build());
 *
 * LimiterSpec own = LimiterSpec.custom()
 *     .limit(LimitSpec.of("aimd", (max, startAt) -> new AimdLimit(max)))
 *     .queue(QueueSpec.of("newest-first", LifoQueue::new))
 *     .build();
 * }</pre>
 */
public final class LimiterSpec {

  private static final LimiterSpec DEFAULTS = new Builder().build();

  private final int maxConcurrency;
  private final int maxQueue;
  private final Duration queueTimeout;
  private final boolean rejectEarly;
  private final Duration leaseTime;
  private final Duration queueDelayTarget;
  private final Duration expectedServiceTime;
  private final LimitSpec limit;
  private final QueueSpec queue;

  private LimiterSpec(Builder b) {
    this.maxConcurrency = b.maxConcurrency;
    this.maxQueue = b.maxQueue;
    this.queueTimeout = b.queueTimeout;
    this.rejectEarly = b.rejectEarly;
    this.leaseTime = b.leaseTime;
    this.queueDelayTarget = b.queueDelayTarget;
    this.expectedServiceTime = b.expectedServiceTime;
    this.limit = b.limit;
    this.queue = b.queue;
  }

  /** A builder starting from the defaults. */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * A builder starting from {@code base}: the way to change one setting of a spec, e.g. of the
   * one in force before {@link ConcurrencyLimiter#reconfigure}. A custom limit or queue is carried
   * over as the same instance, so the limiter keeps its running source and queue.
   */
  public static Builder from(LimiterSpec base) {
    Objects.requireNonNull(base, "base must not be null");
    Builder b = new Builder();
    b.maxConcurrency = base.maxConcurrency;
    b.maxQueue = base.maxQueue;
    b.queueTimeout = base.queueTimeout;
    b.rejectEarly = base.rejectEarly;
    b.leaseTime = base.leaseTime;
    b.queueDelayTarget = base.queueDelayTarget;
    b.expectedServiceTime = base.expectedServiceTime;
    b.limit = base.limit;
    b.queue = base.queue;
    return b;
  }

  /**
   * Every default: {@value ConcurrencyLimiter#DEFAULT_MAX_CONCURRENCY} permits, a FIFO queue of
   * {@value ConcurrencyLimiter#DEFAULT_MAX_QUEUE}, 60 s queue timeout, a fixed limit, no early
   * rejection, 3 s leases.
   */
  public static LimiterSpec ofDefaults() {
    return DEFAULTS;
  }

  /** Permits: the limit of a fixed limit, the ceiling of an adaptive one. */
  public int maxConcurrency() {
    return maxConcurrency;
  }

  /** Waiting slots. */
  public int maxQueue() {
    return maxQueue;
  }

  /** Longest wait in the queue. */
  public Duration queueTimeout() {
    return queueTimeout;
  }

  /** Whether a caller whose predicted wait exceeds its timeout is rejected at once. */
  public boolean rejectEarly() {
    return rejectEarly;
  }

  /** For a global limiter: how long a lease lives unless renewed. */
  public Duration leaseTime() {
    return leaseTime;
  }

  /**
   * Standing-queue control: empty when off (the default). When set to a target T, a queue that has
   * not drained for an interval of {@code max(100 ms, T)} is standing: it grants newest first, and
   * sheds a waiter that has waited T ({@link RejectionReason#STANDING_QUEUE}) rather than letting
   * it time out; it returns to its normal order once it drains. See {@link
   * Builder#queueDelayTarget}.
   */
  public java.util.Optional<Duration> queueDelayTarget() {
    return queueDelayTarget.isZero()
        ? java.util.Optional.empty()
        : java.util.Optional.of(queueDelayTarget);
  }

  /**
   * What one job (of cost 1) is expected to take, empty when not given (the default): a hint that
   * seeds the reject-early prediction before the first jobs have finished, worth a few jobs and
   * replaced by the real ones as they are timed. See {@link Builder#expectedServiceTime}.
   */
  public java.util.Optional<Duration> expectedServiceTime() {
    return expectedServiceTime.isZero()
        ? java.util.Optional.empty()
        : java.util.Optional.of(expectedServiceTime);
  }

  /** Where the limit comes from. */
  public LimitSpec limit() {
    return limit;
  }

  /** The queue discipline. */
  public QueueSpec queue() {
    return queue;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LimiterSpec s
        && maxConcurrency == s.maxConcurrency
        && maxQueue == s.maxQueue
        && queueTimeout.equals(s.queueTimeout)
        && rejectEarly == s.rejectEarly
        && leaseTime.equals(s.leaseTime)
        && queueDelayTarget.equals(s.queueDelayTarget)
        && expectedServiceTime.equals(s.expectedServiceTime)
        && limit.equals(s.limit)
        && queue.equals(s.queue);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        maxConcurrency,
        maxQueue,
        queueTimeout,
        rejectEarly,
        leaseTime,
        queueDelayTarget,
        expectedServiceTime,
        limit,
        queue);
  }

  @Override
  public String toString() {
    return "LimiterSpec[maxConcurrency=" + maxConcurrency + ", maxQueue=" + maxQueue
        + ", queueTimeout=" + queueTimeout + ", limit=" + limit + ", queue=" + queue
        + ", rejectEarly=" + rejectEarly + ", leaseTime=" + leaseTime
        + (queueDelayTarget.isZero() ? "" : ", queueDelayTarget=" + queueDelayTarget)
        + (expectedServiceTime.isZero() ? "" : ", expectedServiceTime=" + expectedServiceTime)
        + "]";
  }

  /**
   * Builds a {@link LimiterSpec}. Every setter checks its value at once and throws {@link
   * IllegalArgumentException} naming the field and the value, e.g. {@code "maxConcurrency must be
   * >= 1 but was 0"}; {@link #build()} checks the fields against each other.
   */
  public static final class Builder {
    private int maxConcurrency = ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY;
    private int maxQueue = ConcurrencyLimiter.DEFAULT_MAX_QUEUE;
    private Duration queueTimeout = ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT;
    private boolean rejectEarly;
    private Duration leaseTime = ConcurrencyLimiter.DEFAULT_LEASE_TIME;
    private Duration queueDelayTarget = Duration.ZERO;
    private Duration expectedServiceTime = Duration.ZERO;
    private LimitSpec limit = LimitSpec.fixed();
    private QueueSpec queue = QueueSpec.fifo();

    private Builder() {}

    /** Permits, at least 1; for an adaptive limit, the ceiling. */
    public Builder maxConcurrency(int n) {
      this.maxConcurrency = atLeast("maxConcurrency", n, 1);
      return this;
    }

    /** Waiting slots, at least 0. */
    public Builder maxQueue(int n) {
      this.maxQueue = atLeast("maxQueue", n, 0);
      return this;
    }

    /** Longest wait in the queue, positive. */
    public Builder queueTimeout(Duration d) {
      Objects.requireNonNull(d, "queueTimeout must not be null");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("queueTimeout must be > 0 but was " + d);
      }
      this.queueTimeout = d;
      return this;
    }

    /**
     * Rejection by predicted wait; default off. When on, a caller who would queue is rejected at
     * once ({@link Outcome#QUEUE_FULL}, {@link RejectionReason#PREDICTED_WAIT}, {@code
     * retryAfterNanos} = the predicted wait) if (callers ahead x service time + what is left of
     * the running jobs' service time) / limit exceeds its timeout (the shorter of its own and
     * {@code queueTimeout}); a queued waiter whose deadline becomes unreachable is rejected the
     * same way, at a re-check every 50-500 ms. The service time is a lower confidence bound of the
     * mean: from the first timed jobs (and before any has finished, from how long the running
     * ones have run, or from {@link #expectedServiceTime}), wide while few are known, so a new
     * limiter refuses only callers that even an optimistic prediction cannot serve in time. Off:
     * the contract is unchanged, a waiter times out with {@link Outcome#QUEUE_TIMEOUT}.
     */
    public Builder rejectEarly(boolean on) {
      this.rejectEarly = on;
      return this;
    }

    /**
     * For a global limiter ({@link ConcurrencyLimiter.Builder#permitStore}): how long a lease
     * lives unless renewed (the store renews held leases every third of it), i.e. how long a dead
     * or paused node's permits stay taken; at least 1 ms, default 3 s ({@link
     * ConcurrencyLimiter#DEFAULT_LEASE_TIME}).
     */
    public Builder leaseTime(Duration d) {
      Objects.requireNonNull(d, "leaseTime must not be null");
      if (d.toMillis() < 1) {
        throw new IllegalArgumentException("leaseTime must be at least 1ms but was " + d);
      }
      this.leaseTime = d;
      return this;
    }

    /**
     * Standing-queue control, after Facebook's adaptive LIFO with controlled delay: {@code target}
     * is the queueing delay a waiter may build up once the queue stands; {@link Duration#ZERO}
     * (the default) turns it off.
     *
     * <p>Why these rules. A queue that drains now and then absorbs bursts, and FIFO is fair to
     * it. A queue that has not drained for an interval is standing: it only adds delay, and under
     * FIFO every admitted caller waits about the whole queue, while the oldest (whose clients may
     * have given up) are served first. The interval is {@code max(100 ms, target)}: 100 ms is the
     * interval of CoDel and of Facebook's queue control (long enough that a burst drains within
     * it; a queue cannot be judged standing over less than its own target). While standing the
     * newest waiter is granted first (within the discipline's keys and classes), so admitted
     * callers wait little, and a waiter that has waited {@code target} is shed with a 429 at
     * once (Facebook's overloaded queue timeout is the target itself) instead of a 504 at the
     * queue timeout; the order returns to normal once the queue drains. A standing queue keeps
     * two rounds of work (twice the limit, in units), never shed and served oldest first: as
     * CoDel never drops its last packet, so that a permit that frees finds a waiter; shedding
     * those near capacity would cost work the permits could have done.
     */
    public Builder queueDelayTarget(Duration target) {
      Objects.requireNonNull(target, "queueDelayTarget must not be null");
      if (target.isNegative()) {
        throw new IllegalArgumentException("queueDelayTarget must be >= 0 but was " + target);
      }
      this.queueDelayTarget = target;
      return this;
    }

    /**
     * What one job (of cost 1) is expected to take; {@link Duration#ZERO} (the default): not
     * known. Nothing requires it: with {@link #rejectEarly} a limiter predicts waits from its
     * first jobs, and before any has finished from how long the running ones have run. A hint
     * lets a new node refuse a caller it cannot serve in time from its very first queued caller.
     * It counts as four timed jobs of that length, one fewer for each real job timed, so after
     * four jobs only the real ones speak and a wrong hint costs no more than the first few jobs'
     * accuracy. Changed on a running limiter ({@link ConcurrencyLimiter#reconfigure}) it applies
     * at once, with the weight left (none once four jobs were timed).
     */
    public Builder expectedServiceTime(Duration expected) {
      Objects.requireNonNull(expected, "expectedServiceTime must not be null");
      if (expected.isNegative()) {
        throw new IllegalArgumentException("expectedServiceTime must be >= 0 but was " + expected);
      }
      this.expectedServiceTime = expected;
      return this;
    }

    /**
     * Where the limit comes from; default {@link LimitSpec#fixed()}. Your own {@link
     * dev.sluice.concurrency.limit.LimitSource} goes in as {@link LimitSpec#of}.
     */
    public Builder limit(LimitSpec spec) {
      this.limit = Objects.requireNonNull(spec, "limit must not be null");
      return this;
    }

    /**
     * The queue discipline; default {@link QueueSpec#fifo()}. Your own {@link WaitQueue} goes in
     * as {@link QueueSpec#of}.
     */
    public Builder queue(QueueSpec spec) {
      this.queue = Objects.requireNonNull(spec, "queue must not be null");
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException when an adaptive limit's lower bound exceeds {@code
     *     maxConcurrency}
     */
    public LimiterSpec build() {
      if (limit.minConcurrency() > maxConcurrency) {
        throw new IllegalArgumentException("minConcurrency must be <= maxConcurrency ("
            + maxConcurrency + ") but was " + limit.minConcurrency());
      }
      return new LimiterSpec(this);
    }

    private static int atLeast(String field, int value, int min) {
      return requireAtLeast(field, value, min);
    }
  }

  /** The check of every whole-number setting of this package, naming the setting and the value. */
  static int requireAtLeast(String field, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(field + " must be >= " + min + " but was " + value);
    }
    return value;
  }
}
