package dev.sluice.redis;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore;
import dev.sluice.time.Scheduler;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Global concurrency permits as leases in Redis (see {@code lease_acquire.lua}): a sorted set per
 * limiter scored by expiry, taken atomically (trim expired, count below the maximum, add), renewed
 * while held, released idempotently. While Redis is down, permits follow the failure policy: a local
 * share of the maximum, every request, or none.
 */
final class RedisPermitStore implements PermitStore {

  private static final Logger LOG = LoggerFactory.getLogger(RedisPermitStore.class);

  private final Link link;
  private final Guard guard;
  private final LuaScript acquire = LuaScript.load("lease_acquire");
  private final LuaScript release = LuaScript.load("lease_release");
  private final LuaScript renew = LuaScript.load("lease_renew");
  private final LuaScript leave = LuaScript.load("lease_leave");
  private final LuaScript count = LuaScript.load("lease_count");
  private final String ticketMicros = Long.toString(TICKET_TTL.toNanos() / 1_000);
  private final PermitNews news;
  private final LocalPermits local;
  private final FailurePolicy policy;
  private final Scheduler scheduler;
  private final CallBound bound;
  /** Lease ids are unique per node and call, so one node's release never frees another's lease. */
  private final String node = UUID.randomUUID().toString();

  private final AtomicLong sequence = new AtomicLong();
  /** Per limiter, the leases this node holds there, renewed together. */
  private final Map<String, LeaseRenewal> renewals = new ConcurrentHashMap<>();

  private final LossWatch loss;
  private final OwedReleases owedReleases;

  RedisPermitStore(
      Link link,
      Guard guard,
      FailurePolicy policy,
      int expectedNodes,
      Scheduler scheduler,
      LossWatch loss,
      CallBound bound) {
    this.link = link;
    this.loss = loss;
    this.guard = guard;
    this.policy = policy;
    this.news = new PermitNews(link, scheduler);
    this.local = new LocalPermits(expectedNodes, news::freedLocally);
    this.scheduler = scheduler;
    this.bound = bound;
    this.owedReleases = new OwedReleases(link, release, scheduler, bound);
  }

  /** How long a waiting caller's ticket stays in the line unless asked about again. */
  static final Duration TICKET_TTL = Duration.ofSeconds(2);

  @Override
  public CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime) {
    return tryAcquire(limiter, maxPermits, leaseTime, "");
  }

  @Override
  // a failed epoch read is asked again beside the next request and by the idle poll
  @SuppressWarnings("FutureReturnValueIgnored")
  public CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime, String ticket) {
    if (maxPermits < 1) {
      throw new IllegalArgumentException("maxPermits must be >= 1 but was " + maxPermits);
    }
    if (leaseTime == null || leaseTime.toMillis() < 1) {
      throw new IllegalArgumentException("leaseTime must be at least 1ms but was " + leaseTime);
    }
    if (loss.settling()) {
      // Redis lost its state a moment ago: the leases of jobs running on other nodes may not be
      // written again yet. Waiting callers wait (and ask again), none is granted on a partial set
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (!guard.tryEnter()) {
      return CompletableFuture.completedFuture(degraded(limiter, maxPermits, leaseTime));
    }
    long start = System.nanoTime();
    try {
      RedisScriptingAsyncCommands<String, String> redis = link.commands();
      if (redis == null) {
        guard.failed(start, new IllegalStateException("not connected"));
        return CompletableFuture.completedFuture(degraded(limiter, maxPermits, leaseTime));
      }
      RedisLease lease = new RedisLease(
          this, limiter, node + ':' + sequence.incrementAndGet(), maxPermits, leaseTime);
      // checked only once this node knows an epoch (it has no lease to write again before that)
      String known = loss.knownUnlessSettling();
      if (known == null) {
        guard.succeeded(start); // a loss found since the check above: no lease on a partial set
        return CompletableFuture.completedFuture(Optional.empty());
      }
      String epoch = loss.inScripts() && loss.learnt() ? known : null;
      if (!loss.learnt()) {
        loss.ask(redis);
      }
      return lease
          .claim(redis, ticket == null ? "" : ticket, local.unadopted(limiter), epoch)
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .handle((held, error) -> {
            if (error != null) {
              guard.failed(start, error);
              // it may still have been taken: release it so that it does not wait for expiry
              lease.release();
              return degraded(limiter, maxPermits, leaseTime);
            }
            guard.succeeded(start);
            owedReleases.retry();
            if (held == -1) {
              loss.ask(redis); // finds the loss (or that another reply found it) and learns
              return Optional.empty();
            }
            adoptLocalPermits(redis);
            if (held == 1) {
              lease.startRenewing();
              return Optional.of(lease);
            }
            return Optional.empty();
          });
    } catch (RuntimeException e) {
      guard.failed(start, e);
      LOG.debug("permit acquire in Redis failed", e);
      return CompletableFuture.completedFuture(degraded(limiter, maxPermits, leaseTime));
    }
  }

  @Override
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  public void leave(String limiter, String ticket) {
    RedisScriptingAsyncCommands<String, String> redis =
        guard.state() == RedisState.UP ? link.commands() : null;
    if (redis == null) {
      return; // the ticket is forgotten by itself after TICKET_TTL
    }
    try {
      leave
          .runForLong(
              redis,
              new String[] {KeyLayout.permitLine(limiter), KeyLayout.permitLineTtl(limiter)},
              ticket,
              KeyLayout.permitsFreed(limiter))
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .whenComplete((removed, error) -> {
            if (error != null) {
              LOG.debug("leaving the line of {} failed; the ticket expires", limiter, error);
            }
          });
    } catch (RuntimeException e) {
      LOG.debug("leaving the line of {} failed", limiter, e);
    }
  }

  @Override
  public Watch watch(String limiter, Runnable listener) {
    return news.watch(limiter, listener);
  }

  /** How many pub/sub connections that stopped answering were replaced since opening. */
  long replacedNewsConnections() {
    return news.replaced();
  }

  @Override
  public CompletionStage<Integer> held(String limiter) {
    RedisScriptingAsyncCommands<String, String> redis =
        guard.state() == RedisState.UP ? link.commands() : null;
    if (redis == null) {
      return CompletableFuture.completedFuture(-1);
    }
    try {
      adoptLocalPermits(redis);
      owedReleases.retry();
      return count
          .runForLong(redis, new String[] {KeyLayout.permits(limiter)})
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .handle((n, error) -> error != null || n == null ? -1 : n.intValue());
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(-1);
    }
  }

  String ticketMicros() {
    return ticketMicros;
  }

  /**
   * Reconcile: the permits granted on the local share while Redis was down and still held are
   * written to Redis now (whatever the maximum: their jobs already run), so the other nodes count
   * them until they end. Called after calls that reached Redis.
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void adoptLocalPermits(RedisScriptingAsyncCommands<String, String> redis) {
    for (LocalPermits.LocalLease held : local.unadopted()) {
      if (!held.startAdopting()) {
        continue;
      }
      RedisLease lease = new RedisLease(
          this,
          held.limiter,
          node + ':' + sequence.incrementAndGet(),
          held.maxPermits,
          held.leaseTime);
      lease.markAdopted();
      lease
          .adopt(redis)
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .whenComplete((written, error) -> {
            if (error != null || !Boolean.TRUE.equals(written)) {
              held.adopted(null); // tried again, under a new id, after the next call to Redis
              if (error != null) {
                // the write may have run with its answer lost: that id is released (and sent
                // again until answered), else it would stay as a lease nobody holds until it
                // expires
                lease.release();
              }
            } else if (held.adopted(lease)) {
              lease.startRenewing();
            } else {
              lease.release(); // its job ended meanwhile
            }
          });
    }
  }

  /**
   * Redis lost its state: the leases this node holds are written again at once, and the permits
   * granted locally during an outage and still held go with them.
   */
  void lostLeases(RedisScriptingAsyncCommands<String, String> redis) {
    for (LeaseRenewal renewal : renewals.values()) {
      for (RedisLease lease : renewal.held()) {
        lease.reclaim(redis);
      }
    }
    adoptLocalPermits(redis);
  }

  /**
   * The jobs of {@code limiter} running on this node under leases taken in Redis: they count
   * against the local share when Redis goes away (without this, a node with its share running
   * granted its share again: 3 running for a limit of 2 at the edges of a fault).
   */
  private int running(String limiter) {
    LeaseRenewal renewal = renewals.get(limiter);
    return renewal == null ? 0 : renewal.running();
  }

  private Optional<PermitLease> degraded(String limiter, int maxPermits, Duration leaseTime) {
    guard.degradedDecision();
    return switch (policy) {
      case LOCAL -> local.tryAcquire(limiter, maxPermits, leaseTime, running(limiter));
      case ALLOW -> Optional.of(LocalPermits.NOTHING_HELD);
      case DENY -> Optional.empty();
    };
  }

  LuaScript acquireScript() {
    return acquire;
  }

  LuaScript releaseScript() {
    return release;
  }

  LuaScript renewScript() {
    return renew;
  }

  /** The renewal of this node's leases on {@code limiter}. */
  LeaseRenewal renewal(String limiter) {
    return renewals.computeIfAbsent(limiter, l -> new LeaseRenewal(this, l));
  }

  /** Sends the releases still owed (Redis answered a probe). */
  void retryOwed() {
    owedReleases.retry();
  }

  OwedReleases owedReleases() {
    return owedReleases;
  }

  Link link() {
    return link;
  }

  Scheduler scheduler() {
    return scheduler;
  }

  /** The bound on a call sent now (see {@link CallBound}). */
  long timeoutNanos() {
    return bound.nanos();
  }

  /**
   * Stops renewing the leases still held; they expire in Redis after their lease time. The
   * connection belongs to {@link RedisStores}, which closes it.
   */
  @Override
  public void close() {
    news.close();
    owedReleases.close();
    renewals.values().forEach(LeaseRenewal::close);
  }
}
