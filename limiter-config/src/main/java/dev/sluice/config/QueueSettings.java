package dev.sluice.config;

import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.request.Actor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A limiter's queue discipline, as its four keys ({@link LimiterKeys#QUEUE}, {@code queue-key},
 * {@code max-queue-per-key}, {@code priority-header}) say together; each was parsed and checked on
 * its own already, naming key and value.
 *
 * @param fair whether waiters are grouped by key and served round-robin ({@code queue=fair})
 * @param key who a request queues as, with {@code fair}: {@code ip}, {@code account}, {@code
 *     device} or {@code header:NAME}, resolved as a rule's actor
 * @param maxQueuePerKey the most waiters one key may have queued, 0: no cap (fair only)
 * @param priorityHeader the header carrying {@code critical | normal | sheddable}; empty: every
 *     request is normal and the queue has no classes
 */
public record QueueSettings(
    boolean fair, Optional<Actor> key, int maxQueuePerKey, Optional<String> priorityHeader) {

  /** The default {@code queue-key}: the client's address. */
  static final String DEFAULT_KEY = "ip";

  /** Plain FIFO, the default: no key, no classes, no per-request cost. */
  public static final QueueSettings FIFO =
      new QueueSettings(false, Optional.empty(), 0, Optional.empty());

  /**
   * The discipline the four queue keys make. With {@code queue=fifo}, {@code queue-key} and {@code
   * max-queue-per-key} mean nothing and are ignored (see {@link #ignoredWithFifo}), so that an A/B
   * run can switch a fair limiter to FIFO with one property.
   */
  static QueueSettings of(boolean fair, String key, int maxQueuePerKey, String priorityHeader) {
    return new QueueSettings(
        fair,
        fair ? Optional.of(Actor.parse(key)) : Optional.empty(),
        fair ? maxQueuePerKey : 0,
        Optional.ofNullable(priorityHeader));
  }

  /** The keys {@code limiter} sets that a FIFO queue ignores, for a start-up warning. */
  public static List<String> ignoredWithFifo(LimiterConfig limiter) {
    if (limiter.queue().fair()) {
      return List.of();
    }
    List<String> ignored = new ArrayList<>();
    if (limiter.isSet(LimiterKeys.QUEUE_KEY) && !DEFAULT_KEY.equals(limiter.queueKey())) {
      ignored.add(limiter.property(LimiterKeys.QUEUE_KEY));
    }
    if (limiter.isSet(LimiterKeys.MAX_QUEUE_PER_KEY) && limiter.maxQueuePerKey() != 0) {
      ignored.add(limiter.property(LimiterKeys.MAX_QUEUE_PER_KEY));
    }
    return ignored;
  }

  /** Whether a request needs a {@code Caller}: plain FIFO takes none (no per-request cost). */
  public boolean needsCaller() {
    return fair || priorityHeader.isPresent();
  }

  /** The core's discipline: FIFO or fair (with the per-key cap), with classes when a header is set. */
  public QueueSpec spec() {
    QueueSpec.Standard base = fair
        ? QueueSpec.fair(
            FairQueueConfig.builder().maxQueuePerKey(maxQueuePerKey).build())
        : (QueueSpec.Standard) QueueSpec.fifo();
    return priorityHeader.isPresent() ? base.withClasses() : base;
  }

  /** For the log and {@code /sluice}: e.g. {@code fair by header:x-host-id, max 4 per key}. */
  public String describe() {
    StringBuilder sb = new StringBuilder(fair ? "fair by " + key.get().id() : "fifo");
    if (maxQueuePerKey > 0) {
      sb.append(", max ").append(maxQueuePerKey).append(" per key");
    }
    priorityHeader.ifPresent(h -> sb.append(", classes from ").append(h));
    return sb.toString();
  }
}
