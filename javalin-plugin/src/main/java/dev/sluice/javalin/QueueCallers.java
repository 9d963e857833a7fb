package dev.sluice.javalin;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Priority;
import dev.sluice.rules.Actor;
import dev.sluice.rules.RequestInfo;
import java.util.function.Function;

/**
 * Builds the {@link Caller} a request queues as: its key (the fair queue's {@code queue-key},
 * resolved as a rule's actor; none: {@link Caller#UNKNOWN_KEY}) and its class (the {@code
 * priority-header}'s value; missing or unknown: normal, never an error). Only made for limiters
 * that need one ({@link QueueSettings#needsCaller()}).
 */
final class QueueCallers {

  private final Function<RequestInfo, String> key; // null: every request under one key
  private final String priorityHeader; // null: every request normal

  QueueCallers(QueueSettings settings) {
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
