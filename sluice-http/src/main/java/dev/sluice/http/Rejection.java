package dev.sluice.http;

import java.util.Map;

/**
 * A request Sluice does not admit, and the answer it gets: made by {@link Answers}, written by
 * {@link Answers#write} onto whatever response a door has. A door may throw it to end the request
 * (the Javalin plugin does, so Javalin skips the endpoint and still runs the after-handlers). No
 * stack trace: rejections are the normal path under overload. The fields are the answer's parts,
 * read by doors and tests; they never change after the answer is made.
 */
public final class Rejection extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Why a request was not admitted. {@link #id} names the problem type ({@code .../queue-full});
   * {@link #tag} is the {@code reason} of the body and of the metrics ({@code queue_full}), written
   * like the limiter's finer reasons ({@code key_cap}, {@code displaced}, {@code predicted_wait}).
   */
  public enum Reason {
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

  /** The kind of refusal: it names the problem type and picks the status. */
  public final Reason reason;

  /**
   * The finer reason, in the problem body and the metrics' {@code reason} tag: the limiter's {@link
   * dev.sluice.concurrency.RejectionReason} ({@code key_cap}, {@code displaced}, {@code
   * predicted_wait}...) or else the reason's own tag ({@code queue_full}...).
   */
  public final String why;

  /** The HTTP status of the answer. */
  public final int status;

  /** The problem's human-readable detail. */
  public final String detail;

  /** The problem's extension members ({@code reason}, {@code limiter}, {@code rule}...). */
  public final transient Map<String, Object> extensions;

  /** The {@code Retry-After} seconds; 0: no {@code Retry-After}. */
  public final long retryAfterSeconds;

  /**
   * The refusing limiter's {@code RateLimit-Policy} and {@code RateLimit} items (with {@code
   * sluice.headers.concurrency}), written after the rules' headers are cleared; null: none.
   */
  transient String[] limiterItems;

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
