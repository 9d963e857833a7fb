package dev.sluice.javalin;

import java.util.Map;

/**
 * Ends a request that Sluice does not admit; thrown from the before-handler (or failed into the
 * request's future) so Javalin skips the endpoint and still runs the after-handlers, then written
 * by {@link Answers#write}. No stack trace: rejections are the normal path under overload.
 */
final class Rejection extends RuntimeException {

  /**
   * Why a request was not admitted. {@link #id} names the problem type ({@code .../queue-full});
   * {@link #tag} is the {@code reason} of the body and of the metrics ({@code queue_full}), written
   * like the limiter's finer reasons ({@code key_cap}, {@code displaced}, {@code predicted_wait}).
   */
  enum Reason {
    QUEUE_FULL("queue-full", "Queue full"),
    QUEUE_TIMEOUT("queue-timeout", "Timed out in queue"),
    RATE_LIMITED("rate-limited", "Rate limit exceeded"),
    SHUTTING_DOWN("shutting-down", "Shutting down"),
    /** A value the request declares (its cost) is not valid. */
    BAD_REQUEST("bad-request", "Bad request"),
    /** The request's own deadline (its deadline header) was spent on arrival. */
    DEADLINE_EXCEEDED("deadline-exceeded", "Deadline exceeded"),
    /** The client went away while queued: nobody reads the answer; counted apart from timeouts. */
    CANCELLED("cancelled", "Client closed the request");

    final String id;
    final String tag;
    final String title;

    Reason(String id, String title) {
      this.id = id;
      this.tag = id.replace('-', '_');
      this.title = title;
    }
  }

  final Reason reason;
  /**
   * The finer reason, in the problem body and the metrics' {@code reason} tag: the limiter's {@link
   * dev.sluice.concurrency.RejectionReason} ({@code key_cap}, {@code displaced}, {@code
   * predicted_wait}...) or else {@link Reason#tag}.
   */
  final String why;

  final int status;
  final String detail;
  final Map<String, Object> extensions;
  final long retryAfterSeconds; // 0: no Retry-After

  /**
   * The refusing limiter's {@code RateLimit-Policy} and {@code RateLimit} items (with {@code
   * sluice.headers.concurrency}), written after the rules' headers are cleared; null: none.
   */
  String[] limiterItems;

  Rejection(
      Reason reason,
      int status,
      String detail,
      Map<String, Object> extensions,
      long retryAfterSeconds) {
    this(reason, reason.tag, status, detail, extensions, retryAfterSeconds);
  }

  Rejection(
      Reason reason,
      String why,
      int status,
      String detail,
      Map<String, Object> extensions,
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
