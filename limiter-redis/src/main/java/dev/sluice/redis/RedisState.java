package dev.sluice.redis;

/** Whether global rules are currently decided in Redis; for metrics and snapshots. */
public enum RedisState {
  /** Redis answers: global rules are enforced globally. */
  UP,
  /** Redis counts as down: global rules follow the failure policy (local share, allow or deny). */
  DOWN,
  /** Redis was down and a few probe calls are testing it; the rest still follow the failure policy. */
  PROBING
}
