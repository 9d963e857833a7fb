package dev.sluice.store;

import java.util.Objects;

/**
 * What a shared store is doing now, for the plugin's status page and metrics.
 *
 * @param state {@code up} (decisions are made in the store), {@code down} (the failure policy
 *     decides), {@code probing} (a few calls test whether it is back) or {@code settling} (it
 *     answers, but lost its state a moment ago: this node decides on its share while every node
 *     gives the store back what it holds)
 * @param description where the store is and what is in force, e.g. {@code redis://10.0.0.5:6379
 *     (up)}
 * @param degradedDecisions decisions made without the store since it was opened
 * @param lostStates how many times this node found that the store had lost its state (a restart
 *     without persistence, a flush)
 */
public record StoreHealth(
    String state, String description, long degradedDecisions, long lostStates) {

  public static final String UP = "up";
  public static final String DOWN = "down";
  public static final String PROBING = "probing";
  public static final String SETTLING = "settling";

  public StoreHealth {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(description, "description");
    if (degradedDecisions < 0 || lostStates < 0) {
      throw new IllegalArgumentException("counts cannot be negative: degradedDecisions="
          + degradedDecisions + ", lostStates=" + lostStates);
    }
  }
}
