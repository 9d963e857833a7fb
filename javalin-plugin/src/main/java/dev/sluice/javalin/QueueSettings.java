package dev.sluice.javalin;

import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.rules.Actor;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * A limiter's queue discipline, from {@code sluice.limiters.<name>.queue}, {@code queue-key},
 * {@code max-queue-per-key} and {@code priority-header}. Every error names the key and the value.
 *
 * @param fair whether waiters are grouped by key and served round-robin ({@code queue=fair})
 * @param key who a request queues as, with {@code fair}: {@code ip}, {@code account}, {@code
 *     device} or {@code header:NAME}, resolved as a rule's actor
 * @param maxQueuePerKey the most waiters one key may have queued, 0: no cap (fair only)
 * @param priorityHeader the header carrying {@code critical | normal | sheddable}; empty: every
 *     request is normal and the queue has no classes
 */
record QueueSettings(
    boolean fair, Optional<Actor> key, int maxQueuePerKey, Optional<String> priorityHeader) {

  static final String QUEUE = "queue";
  static final String QUEUE_KEY = "queue-key";
  static final String MAX_QUEUE_PER_KEY = "max-queue-per-key";
  static final String PRIORITY_HEADER = "priority-header";

  /** Plain FIFO, the default: no key, no classes, no per-request cost. */
  static final QueueSettings FIFO =
      new QueueSettings(false, Optional.empty(), 0, Optional.empty());

  /**
   * Reads the four properties of one limiter.
   *
   * @param prefix {@code sluice.limiters.<name>.}
   * @param get the value of a full key, trimmed, if set
   */
  static QueueSettings parse(String prefix, Function<String, Optional<String>> get) {
    String queue = get.apply(prefix + QUEUE).orElse("fifo").toLowerCase(Locale.ROOT);
    if (!queue.equals("fifo") && !queue.equals("fair")) {
      throw new SluiceConfigException(prefix + QUEUE, queue, "allowed: fifo, fair");
    }
    boolean fair = queue.equals("fair");
    Optional<String> keyValue = get.apply(prefix + QUEUE_KEY).filter(v -> !v.isBlank());
    if (!fair && keyValue.isPresent()) {
      throw new SluiceConfigException(prefix + QUEUE_KEY, keyValue.get(),
          "needs " + prefix + QUEUE + "=fair");
    }
    Optional<Actor> key = fair ? Optional.of(actor(prefix + QUEUE_KEY, keyValue.orElse("ip")))
        : Optional.empty();
    int cap = cap(prefix + MAX_QUEUE_PER_KEY, get.apply(prefix + MAX_QUEUE_PER_KEY).orElse("0"));
    if (!fair && cap > 0) {
      throw new SluiceConfigException(prefix + MAX_QUEUE_PER_KEY, Integer.toString(cap),
          "needs " + prefix + QUEUE + "=fair");
    }
    Optional<String> header = get.apply(prefix + PRIORITY_HEADER).filter(v -> !v.isBlank());
    header.ifPresent(h -> {
      if (!h.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ':')) {
        throw new SluiceConfigException(prefix + PRIORITY_HEADER, h, "not a valid header name");
      }
    });
    return new QueueSettings(fair, key, cap, header);
  }

  private static int cap(String property, String value) {
    try {
      int cap = Integer.parseInt(value);
      if (cap >= 0) {
        return cap;
      }
    } catch (NumberFormatException e) {
      // answered below, as for a negative number
    }
    throw new SluiceConfigException(property, value, "must be a whole number >= 0 (0: no cap)");
  }

  private static Actor actor(String property, String value) {
    Actor actor;
    try {
      actor = Actor.parse(value);
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(property, value, e.getMessage()
          .replace(Actor.ALLOWED, "ip, account, device, header:<name>"));
    }
    if (actor instanceof Actor.All || actor instanceof Actor.Custom) {
      throw new SluiceConfigException(property, value, "allowed: ip, account, device, header:<name>");
    }
    return actor;
  }

  /** Whether a request needs a {@code Caller} at all: plain FIFO takes none (no per-request cost). */
  boolean needsCaller() {
    return fair || priorityHeader.isPresent();
  }

  /** A new queue of this discipline, for one limiter. */
  WaitQueue newQueue() {
    FairQueueConfig config = FairQueueConfig.builder().maxQueuePerKey(maxQueuePerKey).build();
    if (priorityHeader.isPresent()) {
      return fair ? WaitQueue.prioritized(config) : WaitQueue.prioritized();
    }
    return fair ? WaitQueue.fair(config) : WaitQueue.fifo();
  }

  /** For the start-up log and {@code /sluice}: e.g. {@code fair by header:x-host-id, cap 4}. */
  String describe() {
    StringBuilder sb = new StringBuilder(fair ? "fair by " + key.get().id() : "fifo");
    if (maxQueuePerKey > 0) {
      sb.append(", max ").append(maxQueuePerKey).append(" per key");
    }
    priorityHeader.ifPresent(h -> sb.append(", classes from ").append(h));
    return sb.toString();
  }
}
