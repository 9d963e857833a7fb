package dev.sluice.demo;

import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One line per request with its outcome, on the "access" logger. */
final class RequestLog {

  private static final Logger LOG = LoggerFactory.getLogger("access");

  private RequestLog() {}

  static void log(Context ctx, Float millis) {
    int status = ctx.statusCode();
    String account = ctx.header("X-Account-Id");
    LOG.info(
        "{} {} {} {} {}ms account={}",
        ctx.method(),
        ctx.path(),
        status,
        outcome(status, ctx.res().getHeader("Retry-After") != null),
        String.format(java.util.Locale.ROOT, "%.1f", millis),
        account == null ? "-" : account);
  }

  /** The outcome in words, so a grep for "queue-timeout" finds what an operator looks for. */
  static String outcome(int status, boolean retryAfter) {
    return switch (status) {
      case 429 -> retryAfter ? "rejected" : "rejected-no-retry-after";
      case 504 -> "queue-timeout";
      case 503 -> "unavailable";
      case 400 -> "bad-request";
      case 413, 415, 422 -> "bad-footage";
      case JobProblem.CLIENT_GONE -> "client-gone";
      default -> status / 100 == 2 ? "ok" : "status-" + status;
    };
  }
}
