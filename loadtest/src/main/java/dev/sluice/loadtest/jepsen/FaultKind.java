package dev.sluice.loadtest.jepsen;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** What the nemesis of {@code --scenario jepsen} can do, named as {@code --variants} takes them. */
enum FaultKind {
  /** Every connection to Redis reset, new ones refused until healed (the fault proxy). */
  RESET("reset", "connections to Redis reset"),
  /** Nothing gets through to Redis either way, nothing is closed (the fault proxy). */
  BLACKHOLE("blackhole", "Redis blackholed"),
  /** Every round trip to Redis 200 ms longer (the fault proxy). */
  DELAY("delay", "+200 ms to Redis"),
  /** A fifth of the chunks to and from Redis lost once and retransmitted (the fault proxy). */
  LOSS("loss", "20% loss to Redis"),
  /** {@code redis-server} killed, then started again empty on the same port. */
  RESTART_EMPTY("restart-empty", "Redis killed, restarted empty"),
  /** {@code redis-server} stopped with SIGSTOP, then resumed with SIGCONT. */
  REDIS_PAUSE("redis-pause", "Redis paused (SIGSTOP)"),
  /** FLUSHALL: Redis up throughout, its state gone at once. */
  FLUSHALL("flushall", "FLUSHALL"),
  /** One demo node stopped with SIGSTOP, then resumed with SIGCONT. */
  NODE_PAUSE("node-pause", "a node paused (SIGSTOP)"),
  /**
   * One demo node restarted under libfaketime with its clock stepped and running fast or slow,
   * then restarted on the true clock.
   */
  CLOCK("clock", "a node's clock stepped and skewed");

  private final String id;
  private final String description;

  FaultKind(String id, String description) {
    this.id = id;
    this.description = description;
  }

  String id() {
    return id;
  }

  String description() {
    return description;
  }

  /** Whether it has a node to act on (the rest act on Redis or the network to it). */
  boolean onNode() {
    return this == NODE_PAUSE || this == CLOCK;
  }

  /** Every id, comma-separated. */
  static String ids() {
    return Arrays.stream(values()).map(FaultKind::id).collect(Collectors.joining(","));
  }

  /**
   * A comma list of ids.
   *
   * @throws IllegalArgumentException naming {@code option}, the value and the known ids
   */
  static List<FaultKind> parse(String option, String value) {
    List<FaultKind> kinds = new ArrayList<>();
    for (String part : value.split(",")) {
      String id = part.trim();
      FaultKind kind = Arrays.stream(values())
          .filter(k -> k.id.equals(id))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException(option
              + " for --scenario jepsen must be a comma list of " + ids() + " but has '" + id
              + "'"));
      if (!kinds.contains(kind)) {
        kinds.add(kind);
      }
    }
    return List.copyOf(kinds);
  }
}
