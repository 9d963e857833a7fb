package dev.sluice.client;

import dev.sluice.rate.RateLimit;
import java.time.Duration;

/**
 * The immutable settings of a {@link PacedClient}. Built with {@link #custom()} (or {@link
 * #from(PacedClientConfig)}); every setter validates at once and names the setting and the value.
 *
 * <pre>{@code
 * PacedClientConfig config = PacedClientConfig.custom()
 *     .pace(2000, Duration.ofSeconds(1))   // the ceiling: never faster, whatever the server says
 *     .maxConcurrency(64)
 *     .maxQueue(10_000)
 *     .retryBudget(0.1, 10)
 *     .build();
 * }</pre>
 */
public final class PacedClientConfig {

  public static final RateLimit DEFAULT_PACE = RateLimit.of(100, Duration.ofSeconds(1));
  public static final Duration DEFAULT_LOOKAHEAD = Duration.ofMillis(20);
  public static final int DEFAULT_MAX_CONCURRENCY = 64;
  public static final int DEFAULT_MAX_QUEUE = 10_000;
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  public static final double DEFAULT_RETRY_BUDGET_RATIO = 0.1;
  public static final int DEFAULT_MIN_RETRIES = 10;
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(100);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(10);
  /** 0: Google SRE client-side throttling off. 2 is the book's value. */
  public static final double DEFAULT_THROTTLING_K = 0;

  public static final Duration DEFAULT_THROTTLING_WINDOW = Duration.ofMinutes(2);
  public static final Duration DEFAULT_X_RATE_LIMIT_WINDOW = Duration.ofSeconds(1);

  private final RateLimit pace;
  private final Duration lookahead;
  private final int maxConcurrency;
  private final int maxQueue;
  private final int maxAttempts;
  private final double retryBudgetRatio;
  private final int minRetries;
  private final Duration backoffBase;
  private final Duration backoffMax;
  private final double throttlingK;
  private final Duration throttlingWindow;
  private final boolean learnFromHeaders;
  private final Duration xRateLimitWindow;
  private final String deadlineHeader;

  private PacedClientConfig(Builder b) {
    this.pace = b.pace;
    this.lookahead = b.lookahead;
    this.maxConcurrency = b.maxConcurrency;
    this.maxQueue = b.maxQueue;
    this.maxAttempts = b.maxAttempts;
    this.retryBudgetRatio = b.retryBudgetRatio;
    this.minRetries = b.minRetries;
    this.backoffBase = b.backoffBase;
    this.backoffMax = b.backoffMax;
    this.throttlingK = b.throttlingK;
    this.throttlingWindow = b.throttlingWindow;
    this.learnFromHeaders = b.learnFromHeaders;
    this.xRateLimitWindow = b.xRateLimitWindow;
    this.deadlineHeader = b.deadlineHeader;
  }

  public static PacedClientConfig ofDefaults() {
    return custom().build();
  }

  public static Builder custom() {
    return new Builder();
  }

  /** A builder that starts from {@code base}'s values. */
  public static Builder from(PacedClientConfig base) {
    return new Builder(base);
  }

  /** The ceiling: permits per period; the client never sends faster. */
  public RateLimit pace() {
    return pace;
  }

  /** How far ahead send slots are reserved, so a late timer does not lose a slot. */
  public Duration lookahead() {
    return lookahead;
  }

  public int maxConcurrency() {
    return maxConcurrency;
  }

  public int maxQueue() {
    return maxQueue;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public double retryBudgetRatio() {
    return retryBudgetRatio;
  }

  public int minRetries() {
    return minRetries;
  }

  public Duration backoffBase() {
    return backoffBase;
  }

  public Duration backoffMax() {
    return backoffMax;
  }

  public double throttlingK() {
    return throttlingK;
  }

  public Duration throttlingWindow() {
    return throttlingWindow;
  }

  public boolean learnFromHeaders() {
    return learnFromHeaders;
  }

  public Duration xRateLimitWindow() {
    return xRateLimitWindow;
  }

  /** The header that carries each request's remaining budget, if set (see the builder). */
  public java.util.Optional<String> deadlineHeader() {
    return java.util.Optional.ofNullable(deadlineHeader);
  }

  @Override
  public String toString() {
    return "PacedClientConfig[pace=" + pace.limit() + "/" + pace.period() + ", lookahead="
        + lookahead
        + ", maxConcurrency=" + maxConcurrency + ", maxQueue=" + maxQueue + ", maxAttempts="
        + maxAttempts + ", retryBudget=" + retryBudgetRatio + "+" + minRetries + ", backoff="
        + backoffBase + ".." + backoffMax + ", throttlingK=" + throttlingK + "]";
  }

  /** Builds a {@link PacedClientConfig}; each setter validates its value at once. */
  public static final class Builder {
    private RateLimit pace = DEFAULT_PACE;
    private Duration lookahead = DEFAULT_LOOKAHEAD;
    private int maxConcurrency = DEFAULT_MAX_CONCURRENCY;
    private int maxQueue = DEFAULT_MAX_QUEUE;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private double retryBudgetRatio = DEFAULT_RETRY_BUDGET_RATIO;
    private int minRetries = DEFAULT_MIN_RETRIES;
    private Duration backoffBase = DEFAULT_BACKOFF_BASE;
    private Duration backoffMax = DEFAULT_BACKOFF_MAX;
    private double throttlingK = DEFAULT_THROTTLING_K;
    private Duration throttlingWindow = DEFAULT_THROTTLING_WINDOW;
    private boolean learnFromHeaders = true;
    private Duration xRateLimitWindow = DEFAULT_X_RATE_LIMIT_WINDOW;
    private String deadlineHeader;

    private Builder() {}

    private Builder(PacedClientConfig base) {
      this.pace = base.pace;
      this.lookahead = base.lookahead;
      this.maxConcurrency = base.maxConcurrency;
      this.maxQueue = base.maxQueue;
      this.maxAttempts = base.maxAttempts;
      this.retryBudgetRatio = base.retryBudgetRatio;
      this.minRetries = base.minRetries;
      this.backoffBase = base.backoffBase;
      this.backoffMax = base.backoffMax;
      this.throttlingK = base.throttlingK;
      this.throttlingWindow = base.throttlingWindow;
      this.learnFromHeaders = base.learnFromHeaders;
      this.xRateLimitWindow = base.xRateLimitWindow;
      this.deadlineHeader = base.deadlineHeader;
    }

    /**
     * The ceiling: at most {@code permits} sends per {@code period}, released one at a time, evenly
     * spaced ({@code 20} per {@code 200 ms} is one send every 10 ms).
     */
    public Builder pace(long permits, Duration period) {
      if (permits < 1) {
        throw new IllegalArgumentException("pace permits must be >= 1 but was " + permits);
      }
      if (period == null || period.toNanos() < 1_000) {
        throw new IllegalArgumentException(
            "pace period must be at least 1 microsecond but was " + period);
      }
      if (period.toNanos() / permits < 1) {
        throw new IllegalArgumentException(
            "pace " + permits + " per " + period + " is faster than one send per nanosecond");
      }
      this.pace = RateLimit.of(permits, period);
      return this;
    }

    /** How far ahead send slots are reserved (absorbs a late timer); default 20 ms, at most 1 s. */
    public Builder lookahead(Duration lookahead) {
      if (lookahead == null
          || lookahead.isNegative()
          || lookahead.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("lookahead must be in [0, 1s] but was " + lookahead);
      }
      this.lookahead = lookahead;
      return this;
    }

    /** Requests on the wire at once, >= 1. */
    public Builder maxConcurrency(int maxConcurrency) {
      if (maxConcurrency < 1) {
        throw new IllegalArgumentException("maxConcurrency must be >= 1 but was " + maxConcurrency);
      }
      this.maxConcurrency = maxConcurrency;
      return this;
    }

    /** Records waiting for their turn, >= 1; {@code submit} refuses more with QUEUE_FULL. */
    public Builder maxQueue(int maxQueue) {
      if (maxQueue < 1) {
        throw new IllegalArgumentException("maxQueue must be >= 1 but was " + maxQueue);
      }
      this.maxQueue = maxQueue;
      return this;
    }

    /** Tries per record, the first included, in [1, 100]; 1 turns retries off. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 100) {
        throw new IllegalArgumentException(
            "maxAttempts must be in [1, 100] but was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Retries at most {@code ratio} per request plus a reserve of {@code minRetries}. */
    public Builder retryBudget(double ratio, int minRetries) {
      new RetryBudget(ratio, minRetries); // validates both, naming them
      this.retryBudgetRatio = ratio;
      this.minRetries = minRetries;
      return this;
    }

    /** Exponential backoff with full jitter when a throttling answer gives no Retry-After. */
    public Builder backoff(Duration base, Duration max) {
      if (base == null || base.isNegative() || base.isZero()) {
        throw new IllegalArgumentException("backoff base must be positive but was " + base);
      }
      if (max == null || max.compareTo(base) < 0) {
        throw new IllegalArgumentException(
            "backoff max must be >= base (" + base + ") but was " + max);
      }
      this.backoffBase = base;
      this.backoffMax = max;
      return this;
    }

    /**
     * Google SRE client-side throttling with multiplier {@code k} (>= 1; 2 is the book's value) over
     * {@code window}; {@code k = 0} turns it off (the default).
     */
    public Builder clientSideThrottling(double k, Duration window) {
      if (!(k == 0 || (k >= 1 && Double.isFinite(k)))) {
        throw new IllegalArgumentException(
            "clientSideThrottling k must be 0 (off) or >= 1 but was " + k);
      }
      if (window == null || window.toMillis() < 10) {
        throw new IllegalArgumentException(
            "clientSideThrottling window must be >= 10ms but was " + window);
      }
      this.throttlingK = k;
      this.throttlingWindow = window;
      return this;
    }

    /** Whether rate-limit headers may lower the pace and pause a destination; default true. */
    public Builder learnFromHeaders(boolean learn) {
      this.learnFromHeaders = learn;
      return this;
    }

    /** The window {@code X-RateLimit-Limit} counts over (that family does not say); default 1 s. */
    public Builder xRateLimitWindow(Duration window) {
      if (window == null || window.toNanos() < 1_000) {
        throw new IllegalArgumentException(
            "xRateLimitWindow must be at least 1 microsecond but was " + window);
      }
      this.xRateLimitWindow = window;
      return this;
    }

    /**
     * Sends each request's remaining budget in this header, in milliseconds, for a server that
     * reads deadlines (Sluice's {@code deadline-header}, Envoy's {@code
     * x-envoy-expected-rq-timeout-ms}): the request's own {@code HttpRequest.timeout()} less the
     * time it spent paced, queued and retried here. A request whose budget is spent before it is
     * sent is not sent; it fails with {@link java.net.http.HttpTimeoutException}. Requests without
     * a timeout are sent as they are. Default: none.
     */
    public Builder deadlineHeader(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(
            "deadlineHeader must be a header name but was '" + name + "'");
      }
      try {
        // the HTTP client's own check: a token (RFC 9110), and not a header it sets itself
        java.net.http.HttpRequest.newBuilder().header(name, "0");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "deadlineHeader must be a header name the HTTP client may send but was '" + name + "' ("
                + e.getMessage() + ")",
            e);
      }
      this.deadlineHeader = name;
      return this;
    }

    public PacedClientConfig build() {
      return new PacedClientConfig(this);
    }
  }
}
