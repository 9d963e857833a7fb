package dev.sluice.loadtest.soak;

import java.util.List;

/**
 * One sampling round of the soak, taken every 10 s.
 *
 * @param seconds since the load started
 * @param nodes one reading per demo node, in node order
 * @param redisUsedMemory Redis {@code used_memory}, bytes
 * @param redisKeys Redis {@code DBSIZE}
 */
record SoakSample(double seconds, List<Node> nodes, long redisUsedMemory, long redisKeys) {

  /**
   * One node's reading.
   *
   * @param heapAfterGc heap in use right after a full GC the soak asked for, bytes
   * @param threads live JVM threads
   * @param inFlight jobs running on this node (limiter {@code transcode})
   * @param queued jobs waiting on this node
   * @param leases the global limiter's leases held across the cluster, as this node reads them
   *     ({@code clusterLeases}); -1 when the node did not say
   */
  record Node(long heapAfterGc, int threads, int inFlight, int queued, int leases) {}

  /** Whether nothing runs, waits or holds a lease anywhere. */
  boolean idle() {
    return nodes.stream().allMatch(n -> n.inFlight() == 0 && n.queued() == 0 && n.leases() <= 0);
  }
}
