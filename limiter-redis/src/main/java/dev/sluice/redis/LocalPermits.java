package dev.sluice.redis;

import dev.sluice.store.PermitStore.PermitLease;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Global permits while Redis is down under the local policy: this node's share of each limiter's
 * maximum (max / expected nodes, at least 1), counted in memory.
 */
final class LocalPermits {

  /** The lease handed out under the allow policy: nothing is counted, so nothing is given back. */
  static final PermitLease NOTHING_HELD = () -> CompletableFuture.completedFuture(null);

  private final int expectedNodes;
  private final Consumer<String> freed;
  private final ConcurrentMap<String, AtomicInteger> held = new ConcurrentHashMap<>();

  /** {@code freed} is told the limiter's name when a local permit is given back. */
  LocalPermits(int expectedNodes, Consumer<String> freed) {
    this.expectedNodes = expectedNodes;
    this.freed = freed;
  }

  Optional<PermitLease> tryAcquire(String limiter, int maxPermits) {
    int share = Math.max(1, maxPermits / expectedNodes);
    AtomicInteger count = held.computeIfAbsent(limiter, name -> new AtomicInteger());
    while (true) {
      int now = count.get();
      if (now >= share) {
        return Optional.empty();
      }
      if (count.compareAndSet(now, now + 1)) {
        return Optional.of(new LocalLease(count, () -> freed.accept(limiter)));
      }
    }
  }

  private static final class LocalLease implements PermitLease {
    private final AtomicInteger count;
    private final Runnable freed;
    private final AtomicBoolean released = new AtomicBoolean();

    LocalLease(AtomicInteger count, Runnable freed) {
      this.count = count;
      this.freed = freed;
    }

    @Override
    public CompletionStage<Void> release() {
      if (released.compareAndSet(false, true)) {
        count.decrementAndGet();
        freed.run();
      }
      return CompletableFuture.completedFuture(null);
    }
  }
}
