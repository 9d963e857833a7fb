package dev.sluice.redis;

import dev.sluice.store.PermitStore.PermitLease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Global permits while Redis is down under the local policy: this node's share of each limiter's
 * maximum (max / expected nodes, at least 1), counted in memory. A permit granted here and still
 * held when Redis answers again is <em>adopted</em>: a lease for it is written to Redis (whatever
 * the maximum: its job is already running), so the other nodes count it, and it is released with
 * it.
 */
final class LocalPermits {

  /** The lease handed out under the allow policy: nothing is counted, so nothing is given back. */
  static final PermitLease NOTHING_HELD = () -> CompletableFuture.completedFuture(null);

  private final int expectedNodes;
  private final Consumer<String> freed;
  private final ConcurrentMap<String, AtomicInteger> held = new ConcurrentHashMap<>();
  private final Set<LocalLease> unadopted = ConcurrentHashMap.newKeySet();

  /** {@code freed} is told the limiter's name when a local permit is given back. */
  LocalPermits(int expectedNodes, Consumer<String> freed) {
    this.expectedNodes = expectedNodes;
    this.freed = freed;
  }

  /** {@code running}: jobs of this limiter already running on this node under Redis leases. */
  Optional<PermitLease> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime, int running) {
    int share = Math.max(1, maxPermits / expectedNodes) - running;
    AtomicInteger count = held.computeIfAbsent(limiter, name -> new AtomicInteger());
    while (true) {
      int now = count.get();
      if (now >= share) {
        return Optional.empty();
      }
      if (count.compareAndSet(now, now + 1)) {
        LocalLease lease = new LocalLease(limiter, maxPermits, leaseTime, count);
        unadopted.add(lease);
        return Optional.of(lease);
      }
    }
  }

  /** The permits granted here, still held, and not yet written to Redis. */
  List<LocalLease> unadopted() {
    return unadopted.isEmpty() ? List.of() : List.copyOf(unadopted);
  }

  /** How many of {@link #unadopted()} are permits of {@code limiter}. */
  int unadopted(String limiter) {
    if (unadopted.isEmpty()) {
      return 0;
    }
    int n = 0;
    for (LocalLease lease : unadopted) {
      if (lease.limiter.equals(limiter)) {
        n++;
      }
    }
    return n;
  }

  /** A permit granted while Redis was down; see the class comment. */
  final class LocalLease implements PermitLease {
    final String limiter;
    final int maxPermits;
    final Duration leaseTime;
    private final AtomicInteger count;
    private boolean released;
    private boolean adopting;
    private PermitLease adopted;

    LocalLease(String limiter, int maxPermits, Duration leaseTime, AtomicInteger count) {
      this.limiter = limiter;
      this.maxPermits = maxPermits;
      this.leaseTime = leaseTime;
      this.count = count;
    }

    /** Claims the adoption (one attempt at a time); false when released or being adopted. */
    synchronized boolean startAdopting() {
      if (released || adopting || adopted != null) {
        return false;
      }
      adopting = true;
      return true;
    }

    /** The Redis lease written for this permit; false (give it back) when released meanwhile. */
    synchronized boolean adopted(PermitLease lease) {
      adopting = false;
      if (released || lease == null) {
        return false;
      }
      adopted = lease;
      unadopted.remove(this);
      return true;
    }

    @Override
    public CompletionStage<Void> release() {
      PermitLease inRedis;
      synchronized (this) {
        if (released) {
          return CompletableFuture.completedFuture(null);
        }
        released = true;
        inRedis = adopted;
      }
      unadopted.remove(this);
      count.decrementAndGet();
      freed.accept(limiter);
      return inRedis == null ? CompletableFuture.completedFuture(null) : inRedis.release();
    }
  }
}
