package dev.sluice.javalin;

import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RuleDecision;
import io.javalin.http.Context;

/**
 * Writes the rate-limit header families: the IETF draft's {@code RateLimit-Policy} / {@code RateLimit}
 * (draft-ietf-httpapi-ratelimit-headers-10: {@code "id";q=10;w=1} and {@code "id";r=3;t=1}), the
 * de-facto {@code X-RateLimit-*} trio, and {@code Retry-After}. Each family can be switched off.
 * Shadow rules are left out: they never limit the client, so advertising them would mislead it.
 */
final class RateHeaders {

  static final String RETRY_AFTER = "Retry-After";
  static final String POLICY = "RateLimit-Policy";
  static final String RATELIMIT = "RateLimit";
  static final String X_LIMIT = "X-RateLimit-Limit";
  static final String X_REMAINING = "X-RateLimit-Remaining";
  static final String X_RETRY_AFTER = "X-RateLimit-Retry-After";

  private final boolean draft;
  private final boolean x;

  RateHeaders(boolean draft, boolean x) {
    this.draft = draft;
    this.x = x;
  }

  /** Headers for a request checked against rate rules (admitted or rejected). */
  void write(Context ctx, RateVerdict verdict) {
    RuleDecision shown = verdict.mostRestrictive().orElse(null);
    if (shown == null) {
      return; // no enforced rule decided: shadow rules are not advertised
    }
    long limit = shown.decision().limit();
    long remaining = shown.decision().remaining();
    boolean rejected = !shown.decision().allowed();
    long retryAfter = rejected ? retryAfterSeconds(shown.decision().retryAfterNanos()) : 0;
    if (draft) {
      StringBuilder policy = new StringBuilder();
      for (RuleDecision d : verdict.decisions()) {
        if (d.rule().shadow()) {
          continue;
        }
        if (policy.length() > 0) {
          policy.append(", ");
        }
        policy.append(sfString(d.rule().id()))
            .append(";q=").append(d.decision().limit())
            .append(";w=").append(ceilSeconds(d.rule().limit().period().toNanos(), 1));
      }
      ctx.header(POLICY, policy.toString());
      long t = rejected ? retryAfter : ceilSeconds(shown.decision().resetAfterNanos(), 0);
      ctx.header(RATELIMIT, sfString(shown.rule().id()) + ";r=" + remaining + ";t=" + t);
    }
    if (x) {
      ctx.header(X_LIMIT, Long.toString(limit));
      ctx.header(X_REMAINING, Long.toString(remaining));
      if (rejected) {
        ctx.header(X_RETRY_AFTER, Long.toString(retryAfter));
      }
    }
    if (rejected) {
      ctx.header(RETRY_AFTER, Long.toString(retryAfter));
    }
  }

  /** Whole seconds for Retry-After: rounded up and at least 1, so a client never retries at once. */
  static long retryAfterSeconds(long nanos) {
    return ceilSeconds(nanos, 1);
  }

  static long ceilSeconds(long nanos, long min) {
    long seconds = nanos <= 0 ? 0 : (nanos - 1) / 1_000_000_000L + 1;
    return Math.max(min, seconds);
  }

  /** A Structured Fields sf-string: printable ASCII only, with {@code "} and {@code \} escaped. */
  static String sfString(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c >= 0x20 && c < 0x7f) {
        sb.append(c);
      } else {
        sb.append('?');
      }
    }
    return sb.append('"').toString();
  }
}
