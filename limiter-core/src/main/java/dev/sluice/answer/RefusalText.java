package dev.sluice.answer;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.rules.RuleDecision;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The words of a limiter's refusal, the same in every door: the reason's tag ({@code queue_full},
 * {@code key_cap}, {@code predicted_wait}...), which HTTP writes in the problem body and the
 * metrics and gRPC in the status description, and the sentence that says why; the same for a rate
 * rule's refusal.
 */
public final class RefusalText {

  /** The tag of a refusal because the server is stopping. */
  public static final String SHUTTING_DOWN = "shutting_down";

  private RefusalText() {}

  /** {@code KEY_CAP} -> {@code key_cap}; shutdown is {@link #SHUTTING_DOWN}. */
  public static String reasonId(RejectionReason reason) {
    return reason == RejectionReason.SHUTDOWN
        ? SHUTTING_DOWN
        : reason.name().toLowerCase(Locale.ROOT);
  }

  /** Why a caller was refused a place in the queue ({@code QUEUE_FULL} and its finer reasons). */
  public static String queueFull(ConcurrencyRejectedException e) {
    String limiter = "limiter '" + e.limiterName() + "'";
    return switch (e.reason()) {
      case KEY_CAP ->
        "This caller already has the most requests queued that " + limiter + " allows one caller.";
      case DISPLACED ->
        "The request was queued for " + limiter
            + " and gave its place to a request of a higher priority.";
      case STANDING_QUEUE ->
        "The queue of " + limiter + " has stood above its delay target; the"
            + " request waited the target and was shed so that newer requests are served first.";
      case PREDICTED_WAIT ->
        "The predicted wait for " + limiter + " is longer than the request may wait.";
      default -> "Every permit of " + limiter + " is taken and its queue is full.";
    };
  }

  /** Why a queued caller was sent away at its queue timeout. */
  public static String queueTimeout(String limiterName) {
    return "The request waited for limiter '" + limiterName + "' longer than its queue timeout.";
  }

  /**
   * A key at its cap: which key, and, for callers that carry none, that they all share one key (a
   * caller without it competes with every other caller without it).
   *
   * @param key the key the caller queued under
   * @param queueKey what the key is read from, as configured ({@code ip}, {@code header:X-Tenant})
   */
  public static String keyCap(ConcurrencyRejectedException e, String key, String queueKey) {
    String detail = "Requests queued under key '" + key + "' (" + queueKey + ") already hold the"
        + " most places in limiter '" + e.limiterName() + "' that one key may hold.";
    if (Caller.UNKNOWN_KEY.equals(key)) {
      detail += " The request carries no " + queueKey + ": every request without one queues under"
          + " the one shared key '" + key + "'.";
    }
    return detail;
  }

  /** The caller's own deadline had passed when it reached {@code limiterName}. */
  public static String deadlinePassed(String limiterName) {
    return "The request's deadline had passed when it reached " + limiterName + ".";
  }

  /** The tag of a refusal by a rate rule. */
  public static final String RATE_LIMITED = "rate_limited";

  /** Which rate rule refused the caller, and what it allows. */
  public static String rateLimited(RuleDecision rejectedBy) {
    long periodSeconds = Math.max(
        1, TimeUnit.NANOSECONDS.toSeconds(rejectedBy.rule().limit().period().toNanos()));
    return "Rate rule '" + rejectedBy.rule().id() + "' allows "
        + rejectedBy.decision().limit() + " requests per " + periodSeconds + "s.";
  }

  /** Why a caller was refused because the server is stopping. */
  public static String shuttingDown() {
    return "The server is shutting down; retry on another instance or later.";
  }
}
