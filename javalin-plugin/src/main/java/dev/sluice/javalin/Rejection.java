package dev.sluice.javalin;

import java.util.Map;

/**
 * Ends a request that Sluice does not admit; thrown from the before-handler (or failed into the
 * request's future) so Javalin skips the endpoint and still runs the after-handlers, then written
 * by {@link Answers#write}. No stack trace: rejections are the normal path under overload.
 */
final class Rejection extends RuntimeException {

  /** Why a request was not admitted; also the {@code reason} tag of the metrics. */
  enum Reason {
    QUEUE_FULL("queue-full", "Queue full"),
    QUEUE_TIMEOUT("queue-timeout", "Timed out in queue"),
    RATE_LIMITED("rate-limited", "Rate limit exceeded"),
    SHUTTING_DOWN("shutting-down", "Shutting down");

    final String id;
    final String title;

    Reason(String id, String title) {
      this.id = id;
      this.title = title;
    }
  }

  final Reason reason;
  /**
   * The finer reason, in the problem body and the metrics' {@code reason} tag: the limiter's {@link
   * dev.sluice.concurrency.RejectionReason} ({@code key-cap}, {@code displaced}, {@code
   * predicted-wait}...) or else {@link Reason#id}.
   */
  final String why;
  final int status;
  final String detail;
  final Map<String, Object> extensions;
  final long retryAfterSeconds; // 0: no Retry-After

  Rejection(Reason reason, int status, String detail, Map<String, Object> extensions,
      long retryAfterSeconds) {
    this(reason, reason.id, status, detail, extensions, retryAfterSeconds);
  }

  Rejection(Reason reason, String why, int status, String detail, Map<String, Object> extensions,
      long retryAfterSeconds) {
    super(why + ": " + detail, null, false, false);
    this.reason = reason;
    this.why = why;
    this.status = status;
    this.detail = detail;
    this.extensions = extensions;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
