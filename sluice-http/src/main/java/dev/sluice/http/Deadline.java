package dev.sluice.http;

/**
 * A request's own deadline, from the header a limiter names in {@code deadline-header}: the time
 * the caller will wait for an answer. Two forms, as the ecosystem writes them: milliseconds
 * (Envoy's {@code x-envoy-expected-rq-timeout-ms: 250}) and gRPC's {@code grpc-timeout} (at most
 * 8 digits and a unit: {@code H} hours, {@code M} minutes, {@code S} seconds, {@code m} millis,
 * {@code u} micros, {@code n} nanos, e.g. {@code 250m}, {@code 2S}).
 */
public final class Deadline {

  /** Malformed: ignored (the request is limited as one without a deadline) and counted. */
  public static final long MALFORMED = -1;

  private Deadline() {}

  /**
   * The budget {@code raw} gives, in nanoseconds: 0 when already spent, {@link #MALFORMED} when
   * it is not one of the two forms (never an exception: the header comes from the client).
   */
  public static long parseNanos(String raw) {
    String v = raw.trim();
    if (v.isEmpty() || v.length() > 19) {
      return MALFORMED;
    }
    char last = v.charAt(v.length() - 1);
    long unitNanos;
    String digits;
    if (Character.isDigit(last)) {
      unitNanos = 1_000_000L; // plain milliseconds
      digits = v;
    } else {
      unitNanos = switch (last) {
        case 'H' -> 3_600_000_000_000L;
        case 'M' -> 60_000_000_000L;
        case 'S' -> 1_000_000_000L;
        case 'm' -> 1_000_000L;
        case 'u' -> 1_000L;
        case 'n' -> 1L;
        default -> 0;
      };
      digits = v.substring(0, v.length() - 1);
      if (unitNanos == 0 || digits.length() > 8) {
        return MALFORMED;
      }
    }
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return MALFORMED;
    }
    // 19 plain digits pass the length check but may not fit a long: as long a budget as any
    long amount = digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits);
    return amount > Long.MAX_VALUE / unitNanos ? Long.MAX_VALUE : amount * unitNanos;
  }
}
