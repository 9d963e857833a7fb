package dev.sluice.demo;

/**
 * {@code demo.limiter-peer}: a measurement aid, not a feature. Another project's limiter (a {@link
 * Peer} on the load test's class path) guards {@code POST /api/transcode} instead of Sluice's
 * {@code transcode} limiter, so the load test measures it on the same jobs. With a peer set, the
 * demo hands the plugin no {@code sluice.limiters.transcode.*} key; the rescue limiter and the rate
 * rules stay Sluice's.
 */
final class LimiterPeer {

  static final String KEY = "demo.limiter-peer";
  /** The partitioned peer's keys: the header naming the partition, the partitions, the limit. */
  static final String HEADER = KEY + ".partition-header";

  static final String PARTITIONS = KEY + ".partitions";
  static final String LIMIT = KEY + ".limit";
  /** The Sluice limiter the peer replaces: its keys are not handed to the plugin. */
  static final String REPLACED_PREFIX = "sluice.limiters.transcode.";
  /** Sluice's own limiter (the default). */
  static final LimiterPeer NONE = new LimiterPeer("none");

  private final String id;

  private LimiterPeer(String id) {
    this.id = id;
  }

  /**
   * @throws IllegalArgumentException naming the key, the value and the choices
   */
  static LimiterPeer of(String value) {
    String id = Peer.check(KEY, value);
    return id.equals(NONE.id) ? NONE : new LimiterPeer(id); // NONE is compared by identity
  }

  /** As written in the property, e.g. {@code netflix-gradient2}; {@code none} for Sluice's. */
  String id() {
    return id;
  }
}
