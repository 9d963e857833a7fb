package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.rules.RuleDecision;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Turns a refusal into the HTTP answer of the contract (the plugin README, "HTTP answers"): the configured
 * status, an RFC 9457 body and {@code Retry-After} on every 429 and 503.
 */
final class Answers {

  /** Problem type URIs are {@code <base><reason>}, e.g. {@code https://sluice.dev/problems/queue-full}. */
  static final String TYPE_BASE = "https://sluice.dev/problems/";

  // when the limiter has no estimate yet (nothing served), a client still must not retry at once
  private static final long SHUTDOWN_RETRY_SECONDS = 5;

  private final Settings.Statuses statuses;

  Answers(Settings.Statuses statuses) {
    this.statuses = statuses;
  }

  Rejection fromLimiter(ConcurrencyRejectedException e) {
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("limiter", e.limiterName());
    long retry = RateHeaders.retryAfterSeconds(e.retryAfterNanos());
    switch (e.outcome()) {
      case QUEUE_FULL:
        ext.put("retryAfterSeconds", retry);
        return new Rejection(Rejection.Reason.QUEUE_FULL, statuses.queueFull(),
            "Every permit of limiter '" + e.limiterName() + "' is taken and its queue is full.",
            ext, retry);
      case QUEUE_TIMEOUT:
        return new Rejection(Rejection.Reason.QUEUE_TIMEOUT, statuses.queueTimeout(),
            "The request waited for limiter '" + e.limiterName() + "' longer than its queue timeout.",
            ext, 0);
      default:
        return shuttingDown(e.retryAfterNanos() > 0 ? retry : SHUTDOWN_RETRY_SECONDS);
    }
  }

  Rejection parkedTooLong() {
    return new Rejection(Rejection.Reason.QUEUE_TIMEOUT, statuses.queueTimeout(),
        "The request timed out (server async timeout) while it waited in the queue.", Map.of(), 0);
  }

  Rejection shuttingDown(long retryAfterSeconds) {
    return new Rejection(Rejection.Reason.SHUTTING_DOWN, statuses.shuttingDown(),
        "The server is shutting down; retry on another instance or later.", Map.of(),
        Math.max(1, retryAfterSeconds));
  }

  Rejection shuttingDown() {
    return shuttingDown(SHUTDOWN_RETRY_SECONDS);
  }

  Rejection rateLimited(RuleDecision rejectedBy) {
    long retry = RateHeaders.retryAfterSeconds(rejectedBy.decision().retryAfterNanos());
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("rule", rejectedBy.rule().id());
    ext.put("limit", rejectedBy.decision().limit());
    ext.put("retryAfterSeconds", retry);
    long periodSeconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(
        rejectedBy.rule().limit().period().toNanos()));
    return new Rejection(Rejection.Reason.RATE_LIMITED, statuses.rateLimited(),
        "Rate rule '" + rejectedBy.rule().id() + "' allows " + rejectedBy.decision().limit()
            + " requests per " + periodSeconds + "s.",
        ext, retry);
  }

  /** The exception handler Sluice registers for {@link Rejection}. */
  static void write(Rejection r, Context ctx) {
    ctx.status(r.status);
    if (r.retryAfterSeconds > 0) {
      ctx.header(RateHeaders.RETRY_AFTER, Long.toString(r.retryAfterSeconds));
    }
    Problem problem = new Problem(TYPE_BASE + r.reason.id, r.reason.title, r.status, r.detail,
        r.extensions);
    ctx.contentType(Problem.MEDIA_TYPE);
    ctx.result(problem.toJson());
  }
}
