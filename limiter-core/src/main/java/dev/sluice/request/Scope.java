package dev.sluice.request;

import java.util.Locale;

/** Where a rule's counts live. */
public enum Scope {
  /** Counted on this node only. */
  LOCAL,
  /**
   * Counted once for every node, in a shared {@link dev.sluice.store.RateStore}; without a store the
   * rule runs locally (and the engine says so once in the log).
   */
  GLOBAL;

  /** The name used in rules files: {@code local} or {@code global}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses {@code local} or {@code global}, case-insensitively.
   *
   * @throws IllegalArgumentException naming the value and listing the allowed ones
   */
  public static Scope parse(String value) {
    if (value != null) {
      for (Scope scope : values()) {
        if (scope.id().equalsIgnoreCase(value.trim())) {
          return scope;
        }
      }
    }
    throw new IllegalArgumentException("unknown scope '" + value + "'; allowed: local, global");
  }
}
