package dev.sluice.concurrency;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A limiter's queue discipline, as configuration: an immutable value that builds a new, empty
 * {@link WaitQueue} each time a limiter is built or changes discipline (the waiters then move to
 * the new queue). Equal specs mean the same discipline, so reconfiguring with an equal spec keeps
 * the queue.
 *
 * <pre>{@code
 * QueueSpec.fifo()                                              // the default
 * QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(4).build())
 * QueueSpec.fair(FairQueueConfig.DEFAULT).withClasses()         // priority classes, fair inside
 * QueueSpec.of("newest-first", LifoQueue::new)                  // your own discipline
 * }</pre>
 */
public interface QueueSpec {

  /** A new, empty queue of this discipline, for one limiter. */
  WaitQueue newQueue();

  /** Whether callers need a key (a fair queue) to be told apart. */
  default boolean keyed() {
    return false;
  }

  /** Whether callers' {@link Priority} classes matter. */
  default boolean classes() {
    return false;
  }

  /** First come, first served: the default. */
  static QueueSpec fifo() {
    return Standard.FIFO;
  }

  /** Fair across {@link Caller#key()}s, with {@code config}'s per-key cap and weights. */
  static Standard fair(FairQueueConfig config) {
    return new Standard(true, Objects.requireNonNull(config, "config must not be null"), false);
  }

  /** Priority classes, FIFO inside each; {@code fair(config).withClasses()} for fair inside. */
  static Standard prioritized() {
    return new Standard(false, FairQueueConfig.DEFAULT, true);
  }

  /**
   * Your own discipline; {@code queues} returns a new, empty queue each time. Equal only to
   * itself.
   */
  static QueueSpec of(String description, Supplier<? extends WaitQueue> queues) {
    Objects.requireNonNull(description, "description must not be null");
    Objects.requireNonNull(queues, "queues must not be null");
    return new QueueSpec() {
      @Override
      public WaitQueue newQueue() {
        return Objects.requireNonNull(queues.get(), "the queue factory returned null");
      }

      @Override
      public String toString() {
        return description;
      }
    };
  }

  /**
   * The built-in disciplines: FIFO or fair across keys, optionally with priority classes over
   * either (see {@link WaitQueue}).
   *
   * @param fair grouped by key and served round-robin
   * @param fairConfig per-key cap and weights; only with {@code fair}
   * @param classes priority classes, the discipline above inside each
   */
  record Standard(boolean fair, FairQueueConfig fairConfig, boolean classes) implements QueueSpec {

    static final Standard FIFO = new Standard(false, FairQueueConfig.DEFAULT, false);

    /** A FIFO queue ignores the fair settings: they are normalised so equal disciplines are equal. */
    public Standard {
      Objects.requireNonNull(fairConfig, "fairConfig must not be null");
      if (!fair) {
        fairConfig = FairQueueConfig.DEFAULT;
      }
    }

    /** The same discipline with priority classes over it. */
    public Standard withClasses() {
      return new Standard(fair, fairConfig, true);
    }

    @Override
    public boolean keyed() {
      return fair;
    }

    @Override
    public WaitQueue newQueue() {
      if (classes) {
        return fair ? WaitQueue.prioritized(fairConfig) : WaitQueue.prioritized();
      }
      return fair ? WaitQueue.fair(fairConfig) : WaitQueue.fifo();
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(fair ? "fair" : "fifo");
      if (fair && fairConfig.maxQueuePerKey() > 0) {
        sb.append(", max ").append(fairConfig.maxQueuePerKey()).append(" per key");
      }
      if (fair && !fairConfig.keyWeights().isEmpty()) {
        sb.append(", weights ").append(fairConfig.keyWeights());
      }
      if (classes) {
        sb.append(", priority classes");
      }
      return sb.toString();
    }
  }
}
