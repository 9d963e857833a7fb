package dev.sluice.concurrency;

import java.util.Locale;

/**
 * A request's criticality class (Google SRE's criticality, Envoy's priority). A free permit goes to
 * the highest class with waiters; a queue discipline that supports classes may let a higher class
 * displace the newest waiter of a lower one when the queue is full.
 */
public enum Priority {
  /** Must be served: user-facing or recovery work. */
  CRITICAL,
  /** The default class. */
  NORMAL,
  /** May be shed first under overload (prefetch, batch). Can starve under sustained overload. */
  SHEDDABLE;

  /**
   * The class named by {@code value} (case-insensitive, surrounding blanks ignored); {@link
   * #NORMAL} for null, blank or unknown names, so a bad header never fails a request.
   */
  public static Priority parse(String value) {
    if (value == null) {
      return NORMAL;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "critical" -> CRITICAL;
      case "sheddable" -> SHEDDABLE;
      default -> NORMAL;
    };
  }
}
