package dev.sluice.http;

import dev.sluice.answer.RefusalText;
import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.config.SluiceSettings;
import dev.sluice.rules.RuleDecision;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * Turns a refusal into the HTTP answer of the contract (the plugin README, "HTTP answers"): the
 * configured status, an RFC 9457 body and {@code Retry-After} on every 429 and 503. Every HTTP door
 * answers through this class, so a refusal reads the same whichever framework serves the request.
 */
public final class Answers {

  /** Problem type URIs are {@code <base><reason>}, e.g. {@code https://sluice.dev/problems/queue-full}. */
  public static final String TYPE_BASE = "https://sluice.dev/problems/";

  public static final String CONNECTION = "Connection";

  private final SluiceSettings.Statuses statuses;

  /** Answers with the statuses of {@code sluice.status.*}. */
  public Answers(SluiceSettings.Statuses statuses) {
    this.statuses = statuses;
  }

  public Rejection fromLimiter(ConcurrencyRejectedException e) {
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("limiter", e.limiterName());
    String why = RefusalText.reasonId(e.reason());
    ext.put("reason", why);
    // the limiter's estimate of the work ahead: queued x observed service time / limit
    long retry = RetryAfter.seconds(e.retryAfterNanos());
    return switch (e.outcome()) {
      case QUEUE_FULL -> {
        ext.put("retryAfterSeconds", retry);
        yield new Rejection(
            Rejection.Reason.QUEUE_FULL,
            why,
            statuses.queueFull(),
            RefusalText.queueFull(e),
            ext,
            retry);
      }
      case QUEUE_TIMEOUT -> {
        ext.put("retryAfterSeconds", retry);
        yield new Rejection(
            Rejection.Reason.QUEUE_TIMEOUT,
            why,
            statuses.queueTimeout(),
            RefusalText.queueTimeout(e.limiterName()),
            ext,
            retry);
      }
      default -> shuttingDown(e.retryAfterNanos() > 0 ? retry : RetryAfter.SHUTDOWN_SECONDS);
    };
  }

  /**
   * A key at its cap: which key, and, for requests that carry none, that they all share one key
   * (a caller without the header competes with every other caller without it).
   */
  public Rejection keyCap(ConcurrencyRejectedException e, String key, String queueKey) {
    Rejection plain = fromLimiter(e);
    Map<String, Object> ext = new LinkedHashMap<>(plain.extensions);
    ext.put("key", key);
    return new Rejection(
        plain.reason,
        plain.why,
        plain.status,
        RefusalText.keyCap(e, key, queueKey),
        ext,
        plain.retryAfterSeconds);
  }

  public Rejection parkedTooLong() {
    return new Rejection(
        Rejection.Reason.QUEUE_TIMEOUT,
        statuses.queueTimeout(),
        "The request timed out (server async timeout) while it waited in the queue.",
        Map.of("reason", Rejection.Reason.QUEUE_TIMEOUT.tag),
        0);
  }

  /** A value the request declares for Sluice (its cost) is not valid; says which and why. */
  public Rejection badRequest(String detail) {
    return new Rejection(
        Rejection.Reason.BAD_REQUEST,
        400,
        detail,
        Map.of("reason", Rejection.Reason.BAD_REQUEST.tag),
        0);
  }

  /** The request's deadline header says its caller has already given up. */
  public Rejection deadlineExceeded(String limiter) {
    return new Rejection(
        Rejection.Reason.DEADLINE_EXCEEDED,
        statuses.queueTimeout(),
        RefusalText.deadlinePassed(limiter),
        Map.of("reason", Rejection.Reason.DEADLINE_EXCEEDED.tag),
        0);
  }

  /** The client closed the request while it was queued; 499, as nginx logs it, read by nobody. */
  public Rejection clientGone() {
    return new Rejection(
        Rejection.Reason.CANCELLED,
        499,
        "The client closed the request while it waited in the queue.",
        Map.of("reason", Rejection.Reason.CANCELLED.tag),
        0);
  }

  public Rejection shuttingDown(long retryAfterSeconds) {
    return new Rejection(
        Rejection.Reason.SHUTTING_DOWN,
        statuses.shuttingDown(),
        RefusalText.shuttingDown(),
        Map.of("reason", Rejection.Reason.SHUTTING_DOWN.tag),
        Math.max(1, retryAfterSeconds));
  }

  public Rejection shuttingDown() {
    return shuttingDown(RetryAfter.SHUTDOWN_SECONDS);
  }

  public Rejection rateLimited(RuleDecision rejectedBy) {
    long retry = RetryAfter.seconds(rejectedBy.decision().retryAfterNanos());
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("reason", Rejection.Reason.RATE_LIMITED.tag);
    ext.put("rule", rejectedBy.rule().id());
    ext.put("limit", rejectedBy.decision().limit());
    ext.put("retryAfterSeconds", retry);
    return new Rejection(
        Rejection.Reason.RATE_LIMITED,
        statuses.rateLimited(),
        RefusalText.rateLimited(rejectedBy),
        ext,
        retry);
  }

  /** The draft's problem type for a refusal while capacity is temporarily reduced. */
  public static final String TEMPORARY_REDUCED_CAPACITY =
      "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

  /**
   * A limiter's refusal with its own policy (with {@code sluice.headers.concurrency}): the
   * {@code RateLimit-Policy} / {@code RateLimit} items on a queue-full answer, and, while an
   * adaptive limit stands below {@code max-concurrency}, the draft's {@code
   * temporary-reduced-capacity} type and {@code violated-policies} as extension members (the
   * answer's own type stays, so clients and alerts keyed on it keep working).
   */
  public static Rejection withLimiterPolicy(
      Rejection r, String limiter, int limit, int maxConcurrency, String[] items) {
    if (r.reason == Rejection.Reason.QUEUE_FULL) {
      r.limiterItems = items;
    }
    boolean refusedByLimiter =
        r.reason == Rejection.Reason.QUEUE_FULL || r.reason == Rejection.Reason.QUEUE_TIMEOUT;
    if (refusedByLimiter && limit < maxConcurrency) {
      Map<String, Object> ext = new LinkedHashMap<>(r.extensions);
      ext.put("temporary-reduced-capacity", TEMPORARY_REDUCED_CAPACITY);
      ext.put("violated-policies", java.util.List.of(limiter));
      ext.put("limit", limit);
      ext.put("maxConcurrency", maxConcurrency);
      Rejection reduced =
          new Rejection(r.reason, r.why, r.status, r.detail, ext, r.retryAfterSeconds);
      reduced.limiterItems = r.limiterItems;
      return reduced;
    }
    return r;
  }

  /**
   * Writes {@code r} onto {@code response}: status, headers, problem+json body. A rule's rate
   * headers stay only on a rule's own refusal.
   */
  public static void write(Rejection r, HttpAnswer response) {
    response.status(r.status);
    if (r.reason != Rejection.Reason.RATE_LIMITED) {
      // a rule admitted the request before a limiter refused it: its headers would describe an
      // answer no rule gave (a queue-full 429 saying "remaining: 2")
      for (String header : RateHeaders.ALL) {
        response.removeHeader(header);
      }
    }
    if (r.limiterItems != null) {
      response.addHeader(RateHeaders.POLICY, r.limiterItems[0]);
      response.addHeader(RateHeaders.RATELIMIT, r.limiterItems[1]);
    }
    if (r.retryAfterSeconds > 0) {
      response.setHeader(RateHeaders.RETRY_AFTER, Long.toString(r.retryAfterSeconds));
    }
    if (r.reason == Rejection.Reason.SHUTTING_DOWN) {
      // the connection is closed after this answer, so a client sends its next request to a
      // fresh connection (another instance) instead of one the stopping server will close
      response.setHeader(CONNECTION, "close");
    }
    response.body(Problem.MEDIA_TYPE, problem(r).toJson());
  }

  /**
   * The answer to {@link AdmissionFlow.Verdict#REFUSED}: the limiter in {@code passage} refused the
   * request at arrival, a key-cap answer naming the caller's key.
   */
  public Rejection refusalAtArrival(Passage passage) {
    return refusal(
        passage.failure(),
        true,
        passage.caller().key(),
        passage.limiter().config().queueKey());
  }

  /**
   * The answer to a limiter's failed acquire. {@code atArrival}: refused before it queued, when a
   * key-cap answer names the caller's {@code key} ({@code queueKey} is the limiter's {@code
   * queue-key} setting).
   *
   * @throws CompletionException with the cause, when {@code failure} is no refusal of a limiter
   */
  public Rejection refusal(Throwable failure, boolean atArrival, String key, String queueKey) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ConcurrencyRejectedException e) {
      return atArrival && e.reason() == RejectionReason.KEY_CAP
          ? keyCap(e, key, queueKey)
          : fromLimiter(e);
    }
    throw new CompletionException(cause);
  }

  /** The cause a {@link java.util.concurrent.CompletableFuture} wrapped, or {@code failure}. */
  public static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** The RFC 9457 body of a rejection. */
  public static Problem problem(Rejection r) {
    return new Problem(TYPE_BASE + r.reason.id, r.reason.title, r.status, r.detail, r.extensions);
  }
}
