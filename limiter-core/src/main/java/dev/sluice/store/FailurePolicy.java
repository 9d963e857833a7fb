package dev.sluice.store;

import java.util.Locale;

/** What global rules do while the shared store is unreachable. */
public enum FailurePolicy {
  /** Enforce locally at this node's share of the global limit (limit / expected nodes). */
  LOCAL,
  /** Let every request through. */
  ALLOW,
  /** Reject every request under a global rule. */
  DENY;

  /** Parses {@code local}, {@code allow} or {@code deny}, case-insensitively. */
  public static FailurePolicy parse(String value) {
    if (value != null) {
      for (FailurePolicy policy : values()) {
        if (policy.name().equalsIgnoreCase(value.trim())) {
          return policy;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown failure policy '" + value + "'; allowed: local, allow, deny");
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
