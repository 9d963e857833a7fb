package dev.sluice.http;

import dev.sluice.answer.RetryAfter;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateOutcome;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleOutcomes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes the rate-limit header families: the IETF draft's {@code RateLimit-Policy} / {@code RateLimit}
 * (draft-ietf-httpapi-ratelimit-headers-11: {@code "id";q=10;w=1} and {@code "id";r=3;t=1}), the
 * de-facto {@code X-RateLimit-*} trio, and {@code Retry-After}. Each family can be switched off.
 * Shadow rules are left out: they never limit the client, so advertising them would mislead it.
 *
 * <p>The advertised quota is the rule's capacity, so {@code remaining} never exceeds it: a token
 * bucket of 10/s with burst 20 holds 20 permits and refills them in 2 s, advertised as {@code
 * q=20;w=2} and {@code X-RateLimit-Limit: 20} (advertising 10 beside a remaining of 19 told the client
 * something impossible). Window algorithms ignore the burst: their quota is the limit per period.
 *
 * <p>What does not change between requests (a rule's policy item, the prefix of its {@code RateLimit}
 * value, its limit) is formatted once per rule; a {@code RateLimit} value is reused while its
 * numbers repeat. The repeating values are kept as whole header fields of the door's own type
 * {@code F} ({@link Fields}): on Jetty an immutable {@code HttpField}, which is added to an answer
 * without allocating, where adding a name and a value builds a new field and looks the name up in
 * Jetty's table of known headers.
 *
 * @param <R> the response a door adds fields to
 * @param <F> a header field as the door keeps it
 */
public class RateHeaders<R, F> {

  /**
   * How a door makes and adds header fields: {@link #field} is called once per value kept, {@link
   * #add(Object, Object)} on every answer.
   */
  public interface Fields<R, F> {
    /** A field of {@code name} and {@code value}, kept and added to many answers. */
    F field(String name, String value);

    /** Adds a field made by {@link #field} as a field line of its own. */
    void add(R response, F field);

    /** Adds a field line {@code name: value} that is not kept. */
    void add(R response, String name, String value);
  }

  public static final String RETRY_AFTER = "Retry-After";
  public static final String POLICY = "RateLimit-Policy";
  public static final String RATELIMIT = "RateLimit";
  public static final String X_LIMIT = "X-RateLimit-Limit";
  public static final String X_REMAINING = "X-RateLimit-Remaining";
  public static final String X_RETRY_AFTER = "X-RateLimit-Retry-After";

  /** Every header this class may write: none of them belongs on an answer no rule decided. */
  static final String[] ALL = {POLICY, RATELIMIT, X_LIMIT, X_REMAINING, X_RETRY_AFTER};

  private static final String[] SMALL_NUMBERS = new String[1024];

  static {
    for (int i = 0; i < SMALL_NUMBERS.length; i++) {
      SMALL_NUMBERS[i] = Integer.toString(i);
    }
  }

  /** The draft's quota unit of a concurrency limiter's policy. */
  static final String CONCURRENT_REQUESTS = "concurrent-requests";

  private final boolean draft;
  private final boolean x;
  private final Fields<R, F> fields;

  /**
   * {@code X-RateLimit-Remaining} fields of the small numbers, made on first use (racy by design:
   * two threads may each make one, equal and immutable).
   */
  private final Object[] smallRemaining = new Object[SMALL_NUMBERS.length];

  // by rule id; a reloaded rule with the same id but other limits replaces its entry
  private final Map<String, Formatted<F>> formatted = new ConcurrentHashMap<>();
  // by limiter name
  private final Map<String, LimiterItems> limiterItems = new ConcurrentHashMap<>();

  /**
   * Headers of the draft's family ({@code draft}, {@code sluice.headers.draft}) and the {@code
   * X-RateLimit-*} one ({@code x}, {@code sluice.headers.x}), made and added by {@code fields}.
   */
  public RateHeaders(boolean draft, boolean x, Fields<R, F> fields) {
    this.draft = draft;
    this.x = x;
    this.fields = fields;
  }

  /**
   * Headers for a request checked against rate rules (admitted or rejected). They are the first of
   * their names on the answer (the rules decide before any handler of the application runs), so
   * they are added, not set: Jetty's set looks for an earlier field of the name with an iterator
   * object on every call, four of them per request on an IP rule.
   */
  public void write(R ctx, RuleOutcomes outcomes) {
    int shownAt = outcomes.mostRestrictiveIndex();
    if (shownAt < 0) {
      return; // no enforced rule decided: shadow rules are not advertised
    }
    RateOutcome shown = outcomes.outcome(shownAt);
    boolean rejected = !shown.allowed();
    if (!draft && !x) {
      // both families off: a refusal still says when to come back, an admission says nothing
      if (rejected) {
        fields.add(ctx, RETRY_AFTER, number(RetryAfter.seconds(shown.retryAfterNanos())));
      }
      return;
    }
    Formatted<F> rule = formatted(outcomes.rule(shownAt));
    long remaining = shown.remaining();
    long retryAfter = rejected ? RetryAfter.seconds(shown.retryAfterNanos()) : 0;
    if (draft) {
      fields.add(ctx, policyField(outcomes, rule));
      long t = rejected ? retryAfter : RetryAfter.ceilSeconds(shown.resetAfterNanos(), 0);
      fields.add(ctx, rule.rateLimit(remaining, t, fields));
    }
    if (x) {
      fields.add(ctx, rule.quotaField);
      fields.add(ctx, remaining(rule, remaining));
      if (rejected) {
        fields.add(ctx, X_RETRY_AFTER, number(retryAfter));
      }
    }
    if (rejected) {
      fields.add(ctx, RETRY_AFTER, number(retryAfter));
    }
  }

  /**
   * The {@code X-RateLimit-Remaining} field of {@code remaining}: cached below 1,024, else reused
   * while the number repeats.
   */
  @SuppressWarnings("unchecked") // the array holds only fields made by this instance's Fields
  private F remaining(Formatted<F> rule, long remaining) {
    if (remaining >= 0 && remaining < SMALL_NUMBERS.length) {
      F small = (F) smallRemaining[(int) remaining];
      if (small == null) {
        small = fields.field(X_REMAINING, SMALL_NUMBERS[(int) remaining]);
        smallRemaining[(int) remaining] = small;
      }
      return small;
    }
    Last<F> l = rule.lastRemaining;
    if (l == null || l.remaining != remaining) {
      l = new Last<>(remaining, 0, fields.field(X_REMAINING, Long.toString(remaining)));
      rule.lastRemaining = l;
    }
    return l.field;
  }

  /**
   * A concurrency limiter's own policy ({@code "transcode";q=4;qu="concurrent-requests"}: its
   * current limit) and service limit ({@code "transcode";r=1}: its free permits), added as field
   * lines of their own so that a rule's items on the same answer stay (one List either way).
   * Formatted once per limit and per number of free permits: no string is built per request.
   */
  public void writeLimiter(R ctx, String limiter, int limit, int free) {
    String[] items = limiterItems(limiter, limit, free);
    fields.add(ctx, POLICY, items[0]);
    fields.add(ctx, RATELIMIT, items[1]);
  }

  /** {policy item, service limit item} of {@code limiter} at {@code limit} with {@code free}. */
  public String[] limiterItems(String limiter, int limit, int free) {
    LimiterItems items = limiterItems.get(limiter);
    if (items == null || items.limit != limit) {
      items = new LimiterItems(limiter, limit);
      limiterItems.put(limiter, items);
    }
    return items.at(Math.max(0, Math.min(limit, free)));
  }

  /** One limiter's items at one limit; the service limit items are made on first use. */
  private static final class LimiterItems {
    final int limit;
    final String policyItem;
    final String ratePrefix;
    // index: free permits (0..limit, at most SMALL_NUMBERS); racy by design, as Formatted.last
    private final String[][] byFree;

    LimiterItems(String limiter, int limit) {
      this.limit = limit;
      String id = sfString(limiter);
      this.policyItem = id + ";q=" + limit + ";qu=\"" + CONCURRENT_REQUESTS + "\"";
      this.ratePrefix = id + ";r=";
      this.byFree = new String[Math.min(limit, SMALL_NUMBERS.length - 1) + 1][];
    }

    String[] at(int free) {
      if (free >= byFree.length) {
        return new String[] {policyItem, ratePrefix + free};
      }
      String[] pair = byFree[free];
      if (pair == null) {
        pair = new String[] {policyItem, ratePrefix + free};
        byFree[free] = pair;
      }
      return pair;
    }
  }

  /**
   * The {@code RateLimit-Policy} field: the shown rule's own, made once, when it is the only
   * enforced rule (most requests); else a field of every enforced rule's item.
   */
  @SuppressWarnings("ReferenceEquality") // policy() answers the cached item itself when alone
  private F policyField(RuleOutcomes outcomes, Formatted<F> shown) {
    String policy = policy(outcomes, shown);
    return policy == shown.policyItem ? shown.policyField : fields.field(POLICY, policy);
  }

  /** The policy items of every enforced rule; the cached item itself when there is one. */
  // identity on purpose: a formatting belongs to that very Rule object, and a reload makes new ones
  @SuppressWarnings("ReferenceEquality")
  private String policy(RuleOutcomes outcomes, Formatted<F> shown) {
    StringBuilder policy = null;
    String only = null;
    for (int i = 0; i < outcomes.size(); i++) {
      Rule r = outcomes.rule(i);
      if (r.shadow()) {
        continue;
      }
      String item = r == shown.rule ? shown.policyItem : formatted(r).policyItem;
      if (only == null) {
        only = item;
      } else {
        if (policy == null) {
          policy = new StringBuilder(only);
        }
        policy.append(", ").append(item);
      }
    }
    return policy == null ? only : policy.toString();
  }

  @SuppressWarnings("ReferenceEquality") // as in policy(): the cache entry of this very Rule
  private Formatted<F> formatted(Rule rule) {
    Formatted<F> f = formatted.get(rule.id());
    if (f == null || f.rule != rule) {
      f = new Formatted<>(rule, fields);
      formatted.put(rule.id(), f);
    }
    return f;
  }

  /** The quota a client can count on: the capacity for the buckets, the limit for the windows. */
  public static long quota(Rule rule) {
    RateLimit limit = rule.limit();
    boolean bucket = switch (rule.algorithm()) {
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET, LEAKY_BUCKET_SHAPER -> true;
      default -> false;
    };
    return bucket ? Math.max(limit.limit(), limit.burst()) : limit.limit();
  }

  /** The window in which the quota refills at the steady rate, in whole seconds (at least 1). */
  public static long window(Rule rule) {
    RateLimit limit = rule.limit();
    long quota = quota(rule);
    double nanos = (double) quota * limit.period().toNanos() / limit.limit();
    return Math.max(1, (long) Math.ceil(nanos / 1e9));
  }

  private static String number(long n) {
    return n >= 0 && n < SMALL_NUMBERS.length ? SMALL_NUMBERS[(int) n] : Long.toString(n);
  }

  /** A Structured Fields sf-string: printable ASCII only, with {@code "} and {@code \} escaped. */
  public static String sfString(String s) {
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

  /** One rule's header parts, formatted once. */
  private static final class Formatted<F> {
    final Rule rule;
    final String policyItem;
    final String quota;
    final String ratePrefix;
    final F policyField;
    final F quotaField;
    // the last RateLimit field: reused while remaining and t repeat (racy by design: a holder is
    // immutable, so a reader sees a consistent one or a miss)
    private volatile Last<F> last;
    // the last X-RateLimit-Remaining value past the small numbers, likewise
    volatile Last<F> lastRemaining;

    Formatted(Rule rule, Fields<?, F> fields) {
      this.rule = rule;
      String id = sfString(rule.id());
      this.quota = Long.toString(quota(rule));
      this.policyItem = id + ";q=" + quota + ";w=" + window(rule);
      this.ratePrefix = id + ";r=";
      this.policyField = fields.field(POLICY, policyItem);
      this.quotaField = fields.field(X_LIMIT, quota);
    }

    /** The {@code RateLimit} field, reused while {@code remaining} and {@code t} repeat. */
    F rateLimit(long remaining, long t, Fields<?, F> fields) {
      Last<F> l = last;
      if (l == null || l.remaining != remaining || l.t != t) {
        l = new Last<>(remaining, t, fields.field(RATELIMIT, ratePrefix + remaining + ";t=" + t));
        last = l;
      }
      return l.field;
    }
  }

  private record Last<F>(long remaining, long t, F field) {}
}
