package dev.sluice.redis;

import dev.sluice.store.PermitStore;
import dev.sluice.store.RateStore;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Global rate state and concurrency leases in Redis, over one multiplexed Lettuce connection.
 *
 * <p>Usually found through {@link RedisStoreProvider} (set {@code sluice.redis.uri}); can be opened
 * directly:
 *
 * <pre>{@code
 * StoreSettings settings = new StoreSettings(URI.create("redis://127.0.0.1:6379"),
 *     Duration.ofMillis(50), 3, FailurePolicy.LOCAL, NanoClock.system());
 * try (RedisStores stores = RedisStores.open(settings)) {
 *   stores.rates().tryAcquire(List.of(request)).thenAccept(decisions -> ...);
 * }
 * }</pre>
 *
 * <p>Opening never fails because Redis is unreachable: the stores start in state {@link
 * RedisState#DOWN}, decide as the failure policy says, and switch to Redis once it answers.
 */
public final class RedisStores implements Stores {

  private final Link link;
  private final Guard guard;
  private final StallCheck stall;
  private final RateScripts scripts = new RateScripts();
  private final RedisRateStore rates;
  private final RedisPermitStore permits;
  private final LossWatch loss;
  private final Batches batches;
  private final Scheduler scheduler;
  /** Standalone and Sentinel: finds the writes a promoted replica lacks; null in Cluster. */
  private final Replication replication;

  private volatile boolean replicationRefused;
  private final long syncNanos;
  private final long timeoutNanos;
  private final CallBound bound;
  /** How often a node that never connected tries again, besides the breaker's probes. */
  static final java.time.Duration RECONNECT_EVERY = java.time.Duration.ofMillis(500);

  private volatile Scheduler.Cancellable sync;
  private volatile boolean closed;

  RedisStores(StoreSettings settings, Scheduler scheduler) {
    this(settings, scheduler, NanoClock.system());
  }

  /**
   * {@code breakerTime}: the time the breaker waits {@link Guard#OPEN_FOR} on, for tests whose
   * scheduler (the probes) and breaker move together on one virtual time.
   */
  RedisStores(StoreSettings settings, Scheduler scheduler, NanoClock breakerTime) {
    UriOptions options = UriOptions.parse(settings.uri());
    this.bound = new CallBound(settings);
    this.link = new Link(settings, options, bound);
    this.guard =
        new Guard(link.where(), settings.onFailure(), settings.expectedNodes(), bound, breakerTime);
    this.stall = new StallCheck(link, settings.timeout());
    guard.onTimeout(stall::timedOut);
    guard.onAnswer(stall::answered);
    this.scheduler = scheduler;
    this.timeoutNanos = settings.timeout().toNanos();
    this.batches = options.batch() > 0 ? new Batches(options.batch()) : null;
    this.syncNanos = options.batchSync().toNanos();
    Recent recent = new Recent();
    LocalShare local =
        new LocalShare(settings.onFailure(), settings.expectedNodes(), settings.clock(), recent);
    guard.onDown(local::outageStarted);
    // the loss of Redis's state is charged by both stores (see lost)
    this.loss =
        new LossWatch(link, settings.clock(), scheduler, bound, !link.isCluster(), this::lost);
    this.replication = link.isCluster() ? null : new Replication();
    this.rates = new RedisRateStore(
        link, guard, scripts, local, recent, settings.clock(), loss, bound, batches, replication);
    guard.onDown(rates::outageStarted);
    this.permits = new RedisPermitStore(
        link, guard, settings.onFailure(), settings.expectedNodes(), scheduler, loss, bound);
    // a call that failed while Redis counted as up was decided on the share: an idle node pays
    // that debt on the poll, not at its next request, which may never come
    loss.startPolling(() -> guard.state() == RedisState.UP, rates::payDebts);
    scheduleProbe();
    if (replication != null) {
      rates.checkReplicationWith(this::askReplication);
      scheduleReplicationPoll();
    }
    if (batches != null) {
      scheduleSync();
    }
  }

  /** Redis lost its state: each store gives it back what this node holds (see LossWatch). */
  private void lost(RedisScriptingAsyncCommands<String, String> redis) {
    rates.lostState(redis);
    permits.lostLeases(redis);
  }

  /**
   * While Redis counts as down, the node probes it by itself every {@link Guard#OPEN_FOR}: an idle
   * node (no request, so no call through the breaker) reported "down" long after Redis answered
   * again, and its owed releases and charges waited for the next request.
   */
  private void scheduleProbe() {
    scheduler.schedule(
        () -> {
          if (closed) {
            return;
          }
          try {
            probe();
          } finally {
            scheduleProbe();
          }
        },
        Guard.OPEN_FOR.toNanos());
  }

  /**
   * One question through the breaker, bounded as a decision, and again at once while answered. It
   * asks for the epoch (see {@link LossWatch}), so a Redis that came back empty is found here too,
   * before any decision is made on it.
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void probe() {
    // while settling after a loss the decisions keep off Redis and the breaker waits with them,
    // so that "up" keeps meaning "decided in Redis"
    if (closed || loss.settling() || guard.state() == RedisState.UP || !guard.tryEnter()) {
      return;
    }
    long start = System.nanoTime();
    RedisScriptingAsyncCommands<String, String> redis = link.commands();
    if (redis == null) {
      guard.failed(start, new IllegalStateException("not connected"));
      return;
    }
    loss.ask(redis).orTimeout(bound.nanos(), TimeUnit.NANOSECONDS).whenComplete((asked, error) -> {
      if (error != null) {
        guard.failed(start, error);
        return;
      }
      guard.succeeded(start);
      permits.retryOwed();
      rates.payDebts(redis); // what the shares admitted meanwhile, before others trust Redis
      probe(); // the breaker closes after a few answered calls in a row
    });
  }

  /** Every {@link LossWatch#POLL} while up: asks where the master's replication stands. */
  private void scheduleReplicationPoll() {
    scheduler.schedule(
        () -> {
          if (closed) {
            return;
          }
          try {
            RedisScriptingAsyncCommands<String, String> redis =
                guard.state() == RedisState.UP ? link.commands() : null;
            if (redis != null) {
              askReplication(redis).exceptionally(error -> null);
            }
          } finally {
            scheduleReplicationPoll();
          }
        },
        LossWatch.POLL.toNanos());
  }

  /**
   * {@code INFO replication}; when it shows a promoted replica that may lack writes this node
   * made, they are charged again and the held leases written again (see {@link Replication}).
   */
  private CompletableFuture<Void> askReplication(
      RedisScriptingAsyncCommands<String, String> redis) {
    if (replication == null
        || !(redis instanceof io.lettuce.core.api.async.RedisServerAsyncCommands<?, ?>)) {
      return CompletableFuture.completedFuture(null);
    }
    @SuppressWarnings("unchecked")
    var server = (io.lettuce.core.api.async.RedisServerAsyncCommands<String, String>) redis;
    if (replicationRefused) {
      return CompletableFuture.completedFuture(null);
    }
    long poll = replication.nextPoll();
    try {
      return server.info("replication").toCompletableFuture().handle((info, error) -> {
        Throwable cause =
            error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
        if (cause instanceof io.lettuce.core.RedisCommandExecutionException) {
          // a Redis that refuses INFO (renamed or forbidden by a managed service): no check,
          // rather than no decision in Redis after every outage
          replicationRefused = true;
          org.slf4j.LoggerFactory.getLogger(RedisStores.class)
              .warn(
                  "Redis at {} refuses INFO "
                      + "({}): writes a promoted replica missed will not be found",
                  link.where(),
                  cause.getMessage());
          return null;
        }
        if (error != null) {
          throw new java.util.concurrent.CompletionException(cause);
        }
        Replication.Promotion promotion = replication.answered(poll, info);
        if (promotion != null) {
          rates.unreplicated(redis, promotion);
          permits.lostLeases(redis);
        }
        return null;
      });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Batched mode: every batch-sync interval the permits parked on this node go back to Redis. */
  // a failed give-back leaves the permits parked and usable; the next sync tries again
  @SuppressWarnings("FutureReturnValueIgnored")
  private void scheduleSync() {
    sync = scheduler.schedule(
        () -> {
          if (closed) {
            return;
          }
          try {
            giveBack();
          } finally {
            scheduleSync();
          }
        },
        syncNanos);
  }

  private CompletableFuture<Void> giveBack() {
    // while Redis is away the permits stay parked (and usable): they were counted when taken
    RedisScriptingAsyncCommands<String, String> redis =
        guard.state() == RedisState.UP ? link.commands() : null;
    if (redis == null) {
      return CompletableFuture.completedFuture(null);
    }
    try {
      return batches.giveBack(redis, scripts);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Connects to the Redis at {@code settings.uri()} ({@code redis://} or {@code rediss://}; add
   * {@code ?cluster=true} for Redis Cluster), waiting for the first connect attempt to end (bounded
   * by {@link StoreSettings#connectTimeout()}). Never throws because Redis is unreachable.
   */
  public static RedisStores open(StoreSettings settings) {
    RedisStores stores = new RedisStores(settings, Scheduler.system());
    stores.connect(settings);
    return stores;
  }

  /**
   * Makes the first connection, waiting until that attempt ends: the node counts Redis as down only
   * when it failed (refused, unknown host, or no answer within the connect timeout, which bounds the
   * TCP connect and the handshake each), never while it is still connecting. After a failure the
   * link keeps trying in the background, and the breaker's probes find it connected.
   */
  void connect(StoreSettings settings) {
    // Lettuce ends the attempt itself (TCP connect and handshake, each within the connect
    // timeout); this bound is only a safety net for a machine so starved that its timers run late
    long bound = Math.max(
        10_000,
        Math.max(settings.connectTimeout().toMillis(), settings.timeout().toMillis()) * 4);
    try {
      link.connect().get(bound, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // not connected in time: fall through to the check below
    }
    if (link.commands() == null) {
      Throwable why = link.lastConnectError();
      while (why != null && why.getCause() != null) {
        why = why.getCause(); // Lettuce wraps the reason (refused, unknown host, auth) deep down
      }
      guard.markDown(new IllegalStateException(
          "cannot connect at start-up" + (why == null ? " in time" : ": " + why), why));
      keepConnecting();
    }
  }

  /** Until a connection is open, starts a new attempt every {@link #RECONNECT_EVERY}. */
  // connect() records its own failure; the next round tries again
  @SuppressWarnings("FutureReturnValueIgnored")
  private void keepConnecting() {
    scheduler.schedule(
        () -> {
          if (closed || link.isConnected()) {
            return;
          }
          link.connect();
          keepConnecting();
        },
        RECONNECT_EVERY.toNanos());
  }

  /**
   * Ends the start-up allowance (see {@link CallBound}): for tests of a node past its start-up,
   * whose faults are to be found within {@code sluice.redis.timeout}.
   */
  void started() {
    bound.started();
  }

  CallBound callBound() {
    return bound;
  }

  /** The breaker in front of Redis (tests that take Redis down and up without a fault). */
  Guard guard() {
    return guard;
  }

  @Override
  public RateStore rates() {
    return rates;
  }

  @Override
  public PermitStore permits() {
    return permits;
  }

  /** Whether global rules are decided in Redis right now. */
  public RedisState state() {
    return guard.state();
  }

  /**
   * {@code up}, {@code down}, {@code probing}, or {@code settling} after Redis lost its state (see
   * limiter-redis/README.md, "Lost state"), with the counts behind them.
   */
  @Override
  public StoreHealth health() {
    String state = loss.settling() && guard.state() == RedisState.UP
        ? StoreHealth.SETTLING
        : guard.state().name().toLowerCase(java.util.Locale.ROOT);
    return new StoreHealth(state, describe(), guard.degradedDecisions(), loss.losses());
  }

  /** How many decisions (rates and permits) were made without Redis since opening. */
  public long degradedDecisions() {
    return guard.degradedDecisions();
  }

  /**
   * E.g. {@code redis://127.0.0.1:6379 (up)}, or the failure policy in force while down; with a
   * note when Redis answers, but slower than the timeout (see {@link StallCheck}).
   */
  public String describe() {
    String advice = stall.advice();
    return loss.describe(guard.describe()) + (advice.isEmpty() ? "" : " [" + advice + "]");
  }

  /**
   * How many connections that stopped answering were replaced since opening: the command
   * connection (a call timed out, then a PING did) and the pub/sub connection of the lease notices
   * (its periodic PING did).
   */
  public long replacedConnections() {
    return stall.replaced() + permits.replacedNewsConnections();
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Gives batched permits back, then closes the connection; leases still held expire in Redis after
   * their lease time.
   */
  @Override
  public void close() {
    closed = true;
    if (sync != null) {
      sync.cancel();
    }
    if (batches != null) {
      try {
        giveBack().get(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        // best effort: what is not given back refills in Redis by itself
      }
    }
    loss.close();
    permits.close();
    link.close();
  }
}
