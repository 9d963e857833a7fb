package dev.sluice.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link PermitStore} in memory with the cluster-wide line of tickets, for tests: several limiters
 * ("nodes") built on one instance share its permits. Answers synchronously; notifies watchers after
 * every release and every ticket that leaves, outside its lock. Leases never expire.
 */
public final class InMemoryPermitStore implements PermitStore {

  private final Map<String, Limiter> limiters = new HashMap<>();
  private final Map<String, List<Runnable>> watchers = new HashMap<>();
  private final AtomicInteger maxHeldSeen = new AtomicInteger();
  private volatile boolean refuseAll;

  private static final class Limiter {
    int held;
    final Set<String> line = new LinkedHashSet<>();
  }

  /** Leases held of {@code limiter} now. */
  public synchronized int heldNow(String limiter) {
    Limiter l = limiters.get(limiter);
    return l == null ? 0 : l.held;
  }

  /** Tickets waiting in the line of {@code limiter}. */
  public synchronized int waiting(String limiter) {
    Limiter l = limiters.get(limiter);
    return l == null ? 0 : l.line.size();
  }

  /** The most leases of any limiter ever held at once. */
  public int maxHeldSeen() {
    return maxHeldSeen.get();
  }

  /** While true every request is refused (a store with every permit taken elsewhere). */
  public void refuseAll(boolean refuse) {
    this.refuseAll = refuse;
  }

  @Override
  public CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime) {
    return tryAcquire(limiter, maxPermits, leaseTime, null);
  }

  @Override
  public synchronized CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime, String ticket) {
    Limiter l = limiters.computeIfAbsent(limiter, name -> new Limiter());
    int free = maxPermits - l.held;
    int rank = rank(l.line, ticket);
    if (refuseAll || rank >= free) {
      if (ticket != null) {
        l.line.add(ticket);
      }
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (ticket != null) {
      l.line.remove(ticket);
    }
    l.held++;
    maxHeldSeen.accumulateAndGet(l.held, Math::max);
    AtomicBoolean released = new AtomicBoolean();
    PermitLease lease = () -> {
      if (released.compareAndSet(false, true)) {
        synchronized (this) {
          l.held--;
        }
        notifyWatchers(limiter);
      }
      return CompletableFuture.completedFuture(null);
    };
    return CompletableFuture.completedFuture(Optional.of(lease));
  }

  private static int rank(Set<String> line, String ticket) {
    int rank = 0;
    for (String t : line) {
      if (t.equals(ticket)) {
        return rank;
      }
      rank++;
    }
    return rank; // not in line: behind everyone
  }

  @Override
  public void leave(String limiter, String ticket) {
    boolean removed;
    synchronized (this) {
      Limiter l = limiters.get(limiter);
      removed = l != null && l.line.remove(ticket);
    }
    if (removed) {
      notifyWatchers(limiter);
    }
  }

  @Override
  public synchronized Watch watch(String limiter, Runnable listener) {
    watchers.computeIfAbsent(limiter, name -> new CopyOnWriteArrayList<>()).add(listener);
    return () -> {
      synchronized (this) {
        watchers.get(limiter).remove(listener);
      }
    };
  }

  @Override
  public synchronized CompletionStage<Integer> held(String limiter) {
    return CompletableFuture.completedFuture(heldNow(limiter));
  }

  private void notifyWatchers(String limiter) {
    List<Runnable> toCall;
    synchronized (this) {
      toCall = new ArrayList<>(watchers.getOrDefault(limiter, List.of()));
    }
    toCall.forEach(Runnable::run);
  }

  @Override
  public void close() {}
}
