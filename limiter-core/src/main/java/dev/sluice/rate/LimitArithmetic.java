package dev.sluice.rate;

/** Integer arithmetic the algorithms share: exact, and explicit about overflow. */
final class LimitArithmetic {

  /** Headroom kept below {@link Long#MAX_VALUE} so that sums of two bounded values never wrap. */
  static final long MAX_SPAN = 1L << 61;

  private LimitArithmetic() {}

  /** {@code ceil(x / y)} for {@code x >= 0, y > 0} (Math.ceilDiv arrives only in Java 18). */
  static long ceilDiv(long x, long y) {
    long q = x / y;
    return q * y == x ? q : q + 1;
  }

  /** The period in nanoseconds, or a clear error for a period beyond ~292 years. */
  static long periodNanos(RateLimit limit) {
    try {
      return limit.period().toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "period is too long to count in nanoseconds: " + limit.period(), e);
    }
  }

  /** {@code a * b}, or an error naming what was being computed when it passes {@link #MAX_SPAN}. */
  static long boundedProduct(long a, long b, String what, RateLimit limit) {
    long high = Math.multiplyHigh(a, b);
    long product = a * b;
    if (high != 0 || product < 0 || product > MAX_SPAN) {
      throw new IllegalArgumentException(what + " overflows for " + limit);
    }
    return product;
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
