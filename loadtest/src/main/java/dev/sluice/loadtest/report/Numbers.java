package dev.sluice.loadtest.report;

import java.util.Locale;

/**
 * The one number formatter of the reports: figures, shares, ratios and milliseconds, always in
 * {@link Locale#ROOT}, a missing figure (NaN) as {@code -}.
 */
public final class Numbers {

  private Numbers() {}

  /** Whole at 100 and above, one decimal below; NaN as {@code -}. */
  public static String num(double v) {
    return num(v, 1);
  }

  /** Whole at 100 and above (by magnitude), {@code decimals} below; NaN as {@code -}. */
  public static String num(double v, int decimals) {
    return Double.isNaN(v)
        ? "-"
        : String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : "%." + decimals + "f", v);
  }

  /** A share as a whole percent, {@code 94%}; NaN as {@code -}. */
  public static String pct(double share) {
    return Double.isNaN(share) ? "-" : f("%.0f%%", 100 * share);
  }

  /** A share as a whole percent in a sentence; NaN as {@code not measured}. */
  public static String percent(double share) {
    return Double.isNaN(share) ? "not measured" : pct(share);
  }

  /** A ratio, {@code 1.5x}; NaN as {@code -}. */
  public static String times(double ratio) {
    return Double.isNaN(ratio) ? "-" : num(ratio) + "x";
  }

  /** A relative change, {@code +36%} or {@code -10%}. */
  public static String change(double ratio) {
    return f("%+.0f%%", 100 * (ratio - 1));
  }

  /** Whole milliseconds grouped, {@code 3,400 ms}; NaN as {@code not measured}. */
  public static String ms(double millis) {
    return Double.isNaN(millis) ? "not measured" : f("%,.0f ms", millis);
  }

  /** Whole when whole or at 10 and above, else one decimal: seconds and percents in sentences. */
  public static String round(double v) {
    double tenths = Math.round(v * 10) / 10.0; // 9.96 reads 10, not 10.0
    return f(tenths >= 10 || tenths == Math.rint(tenths) ? "%.0f" : "%.1f", tenths);
  }

  /** Any figure by a format of its own, in {@link Locale#ROOT}. */
  public static String f(String format, Object... values) {
    return String.format(Locale.ROOT, format, values);
  }
}
