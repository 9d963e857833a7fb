package dev.sluice.demo;

/**
 * {@code demo.overhead-peer}: a measurement aid, not a feature. The limiter another project would
 * put in front of {@link #PATH} (a {@link Peer} on the load test's class path), so the load test's
 * overhead run compares Sluice's cost with its peers' on the same light endpoint.
 */
final class OverheadPeer {

  static final String KEY = "demo.overhead-peer";
  /** The light endpoint the peers guard; it answers a constant. */
  static final String PATH = "/api/ping";

  private OverheadPeer() {}
}
