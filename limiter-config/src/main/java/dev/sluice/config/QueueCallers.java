package dev.sluice.config;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Priority;
import dev.sluice.request.Actor;
import dev.sluice.request.RequestInfo;
import java.util.function.Function;

/**
 * One limiter's queue discipline as the request path sees it: builds the {@link Caller} a request
 * queues as, its key (the fair queue's {@code queue-key}, resolved as a rule's actor; none: {@link
 * Caller#UNKNOWN_KEY}) and its class (the {@code priority-header}'s value; missing or unknown:
 * normal, never an error). For plain FIFO nothing is built: {@link #needed()} is false. Every door
 * builds its callers here, from the request info it has (HTTP headers, gRPC metadata).
 *
 * <p>A reload may change the discipline ({@link #change}): the limiter's waiters move to the new
 * queue and later requests are built the new way.
 */
public final class QueueCallers {

  /** How requests are keyed and classed; null for plain FIFO. Swapped whole on reload. */
  private volatile Resolver resolver;

  private volatile QueueSettings settings;

  /** The callers of a limiter queueing as {@code settings} say. */
  public QueueCallers(QueueSettings settings) {
    use(settings);
  }

  private void use(QueueSettings next) {
    settings = next;
    resolver = next.needsCaller() ? new Resolver(next) : null;
  }

  /** Whether requests need a {@link Caller} of their own (fair, or classes). */
  public boolean needed() {
    return resolver != null;
  }

  /** The caller {@code request} queues as. */
  public Caller of(RequestInfo request) {
    Resolver r = resolver;
    return r == null ? Caller.DEFAULT : r.of(request);
  }

  /** The queue settings in force. */
  public QueueSettings settings() {
    return settings;
  }

  /**
   * Later requests are keyed and classed the new way; the core limiter moves the queued ones to
   * the new queue when it is reconfigured with the new discipline.
   */
  public void change(QueueSettings next) {
    use(next);
  }

  /** Immutable: the extractor of the key and the header of the class. */
  private static final class Resolver {
    private final Function<RequestInfo, String> key; // null: every request under one key
    private final String priorityHeader; // null: every request normal

    Resolver(QueueSettings settings) {
      this.key = settings.key().map(Actor::keyOf).orElse(null);
      this.priorityHeader = settings.priorityHeader().orElse(null);
    }

    Caller of(RequestInfo request) {
      Caller caller = key == null ? Caller.DEFAULT : Caller.of(key.apply(request));
      if (priorityHeader != null) {
        Priority priority = Priority.parse(request.header(priorityHeader).orElse(null));
        if (priority != Priority.NORMAL) {
          caller = caller.withPriority(priority);
        }
      }
      return caller;
    }
  }
}
