package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The permit store's bookkeeping against a real Redis, on a virtual scheduler: renewals, owed
 * releases and probes run only when a test moves time, and Redis is taken down and up through the
 * breaker instead of by a fault, so each test runs in milliseconds. The faults themselves are in
 * the integration tests (NetworkFaultTest, ReconcileTest, DegradationTest).
 */
@Tag("integration")
class PermitStoreTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration LEASE = Duration.ofSeconds(3);
  /**
   * The decision timeout: a broken call costs a test this long, not more (a local Redis answers
   * in milliseconds).
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /**
   * The wait for what a node does by itself (a round trip, a reconnect): longer than one call's
   * {@link #TIMEOUT}, and short enough that a mutant that keeps it from happening fails the test
   * here, within PIT's timeout allowance for a test (4 s and more).
   */
  private static final Duration WAIT = Duration.ofSeconds(3);

  private final VirtualTime time = new VirtualTime();
  private final Nodes nodes = new Nodes();
  private final String limiter = "permits-" + UUID.randomUUID();

  @AfterEach
  void close() {
    nodes.close();
  }

  private RedisStores node(FailurePolicy policy) {
    return node(REDIS.server().uri(), policy);
  }

  private RedisStores node(URI uri, FailurePolicy policy) {
    return nodes.open(
        new StoreSettings(uri, TIMEOUT, 2, policy, time, Duration.ofSeconds(1)), time);
  }

  private static Optional<PermitLease> take(PermitStore store, String limiter, int max) {
    return store.tryAcquire(limiter, max, LEASE).toCompletableFuture().join();
  }

  private long inRedis() {
    return Long.parseLong(REDIS.server().command("ZCARD", KeyLayout.permits(limiter)));
  }

  private static void release(PermitLease lease) {
    lease.release().toCompletableFuture().join();
  }

  @Test
  void noMoreThanTheMaximumIsHeldAndAReleaseFreesOne() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    PermitLease first = take(store, limiter, 2).orElseThrow();
    PermitLease second = take(store, limiter, 2).orElseThrow();

    assertThat(take(store, limiter, 2)).isEmpty();
    assertThat(store.held(limiter).toCompletableFuture().join()).isEqualTo(2);

    release(first);
    release(first);

    assertThat(inRedis()).isEqualTo(1);
    assertThat(take(store, limiter, 2)).isPresent();
    release(second);
  }

  @Test
  void theArgumentsAreChecked() {
    PermitStore store = node(FailurePolicy.DENY).permits();

    assertThatThrownBy(() -> store.tryAcquire(limiter, 0, LEASE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxPermits must be >= 1 but was 0");
    assertThatThrownBy(() -> store.tryAcquire(limiter, 1, Duration.ofNanos(999_999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseTime must be at least 1ms but was PT0.000999999S");
    assertThatThrownBy(() -> store.tryAcquire(limiter, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store
            .tryAcquire(limiter, 1, Duration.ofMillis(1))
            .toCompletableFuture()
            .join())
        .isPresent();
  }

  @Test
  void theLeaseLivesForItsLeaseTime() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    assertThat(take(store, limiter, 2)).isPresent();

    long ttl = Long.parseLong(REDIS.server().command("PTTL", KeyLayout.permits(limiter)));

    assertThat(ttl).isBetween(LEASE.toMillis() - 1_000, LEASE.toMillis() + 1);
  }

  @Test
  void heldLeasesAreRenewedEveryThirdOfTheLeaseTimeAndWrittenAgainIfGone() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    PermitLease lease = take(store, limiter, 2).orElseThrow();
    assertThat(time.pendingDelaysNanos()).contains(LEASE.toNanos() / 3);
    // the lease vanished from Redis (expired while this node was paused, or a loss)
    REDIS.server().command("DEL", KeyLayout.permits(limiter));

    time.advance(LEASE.dividedBy(3));

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);
    long ttl = Long.parseLong(REDIS.server().command("PTTL", KeyLayout.permits(limiter)));
    assertThat(ttl).isBetween(LEASE.toMillis() - 1_000, LEASE.toMillis() + 1);
    release(lease);
    assertThat(inRedis()).isZero();
  }

  @Test
  void aReleasedLeaseIsNotRenewed() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    PermitLease kept = take(store, limiter, 3).orElseThrow();
    PermitLease ended = take(store, limiter, 3).orElseThrow();
    release(ended);
    REDIS.server().command("DEL", KeyLayout.permits(limiter));

    time.advance(LEASE.dividedBy(3));

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);
    assertThat(REDIS.server().command("ZRANGE", KeyLayout.permits(limiter), "0", "-1"))
        .doesNotContain(((RedisLease) ended).id())
        .contains(((RedisLease) kept).id());
  }

  @Test
  void withNoLeaseLeftTheRenewalStops() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    release(take(store, limiter, 2).orElseThrow());
    time.advance(LEASE.dividedBy(3));

    assertThat(time.pendingDelaysNanos()).doesNotContain(LEASE.toNanos() / 3);
    // the next lease starts renewing again
    assertThat(take(store, limiter, 2)).isPresent();
    assertThat(time.pendingDelaysNanos()).contains(LEASE.toNanos() / 3);
  }

  @Test
  void aClosedStoreRenewsNothing() {
    RedisStores node = node(FailurePolicy.DENY);
    assertThat(take(node.permits(), limiter, 2)).isPresent();

    node.permits().close();

    assertThat(time.pendingDelaysNanos()).doesNotContain(LEASE.toNanos() / 3);
  }

  @Test
  void whileDownTheLocalPolicyGrantsTheNodesShare() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));

    int granted = 0;
    for (int i = 0; i < 5; i++) {
      if (take(node.permits(), limiter, 4).isPresent()) {
        granted++;
      }
    }

    assertThat(granted).isEqualTo(2);
    assertThat(node.degradedDecisions()).isEqualTo(5);
    assertThat(node.permits().held(limiter).toCompletableFuture().join()).isEqualTo(-1);
    assertThat(inRedis()).isZero();
  }

  @Test
  void whileDownTheAllowPolicyGrantsEverythingAndDenyNothing() {
    RedisStores allow = node(FailurePolicy.ALLOW);
    RedisStores deny = node(FailurePolicy.DENY);
    allow.guard().markDown(new IllegalStateException("test"));
    deny.guard().markDown(new IllegalStateException("test"));

    for (int i = 0; i < 3; i++) {
      assertThat(take(allow.permits(), limiter, 1)).contains(LocalPermits.NOTHING_HELD);
      assertThat(take(deny.permits(), limiter, 1)).isEmpty();
    }
  }

  @Test
  void jobsRunningUnderRedisLeasesCountAgainstTheLocalShare() {
    RedisStores node = node(FailurePolicy.LOCAL);
    assertThat(take(node.permits(), limiter, 4)).isPresent();
    node.guard().markDown(new IllegalStateException("test"));

    assertThat(take(node.permits(), limiter, 4)).isPresent();
    assertThat(take(node.permits(), limiter, 4)).isEmpty();
  }

  @Test
  void permitsGrantedLocallyAreWrittenToRedisWhenItAnswersAgain() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    PermitLease first = take(node.permits(), limiter, 4).orElseThrow();
    PermitLease second = take(node.permits(), limiter, 4).orElseThrow();

    node.guard().markUp();
    // the two granted locally count as held for this acquire: 3 of 4
    PermitLease third = take(node.permits(), limiter, 4).orElseThrow();

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 3);
    assertThat(take(node.permits(), limiter, 4)).isPresent();
    assertThat(take(node.permits(), limiter, 4)).isEmpty();
    // a permit adopted in Redis is released there with its local lease
    release(first);
    assertThat(inRedis()).isEqualTo(3);
    release(second);
    release(third);
    assertThat(inRedis()).isEqualTo(1);
  }

  @Test
  void aLocalPermitReleasedBeforeRedisAnswersIsNotWritten() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    release(take(node.permits(), limiter, 4).orElseThrow());
    node.guard().markUp();

    PermitLease lease = take(node.permits(), limiter, 4).orElseThrow();
    node.permits().held(limiter).toCompletableFuture().join();

    assertThat(inRedis()).isEqualTo(1);
    release(lease);
  }

  @Test
  void adoptedLeasesAreRenewedButDoNotCountAsRunningUnderRedis() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(take(node.permits(), limiter, 4)).isPresent();
    node.guard().markUp();
    node.permits().held(limiter).toCompletableFuture().join();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);

    // down again: the adopted permit is counted by the local share already, not twice
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(take(node.permits(), limiter, 4)).isPresent();
    assertThat(take(node.permits(), limiter, 4)).isEmpty();
  }

  @Test
  void aLostStateWritesTheHeldLeasesAgain() {
    RedisStores node = node(FailurePolicy.DENY);
    PermitLease lease = take(node.permits(), limiter, 2).orElseThrow();
    REDIS.server().command("DEL", KeyLayout.permits(limiter));

    ((RedisPermitStore) node.permits())
        .lostLeases(((RedisPermitStore) node.permits()).link().commands());

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);
    release(lease);
    assertThat(inRedis()).isZero();
    // a released lease is not written again
    ((RedisPermitStore) node.permits())
        .lostLeases(((RedisPermitStore) node.permits()).link().commands());
    node.permits().held(limiter).toCompletableFuture().join();
    assertThat(inRedis()).isZero();
  }

  @Test
  void aReleaseThatDidNotReachRedisIsSentAgain() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    String id = "elsewhere:1";
    REDIS.server().command("ZADD", KeyLayout.permits(limiter), "99999999999999", id);

    store
        .owedReleases()
        .owe(KeyLayout.permits(limiter), id, KeyLayout.permitsFreed(limiter), LEASE.toNanos());
    assertThat(store.owedReleases().size()).isEqualTo(1);
    time.advanceNanos(OwedReleases.RETRY_EVERY_NANOS);

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> store.owedReleases().size() == 0);
    assertThat(inRedis()).isZero();
  }

  @Test
  void aReleaseOwedLongerThanItsLeaseIsDropped() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    REDIS.server().command("ZADD", KeyLayout.permits(limiter), "99999999999999", "gone:1");

    store
        .owedReleases()
        .owe(KeyLayout.permits(limiter), "gone:1", KeyLayout.permitsFreed(limiter), 0);
    store.retryOwed();

    assertThat(store.owedReleases().size()).isZero();
    assertThat(inRedis()).isEqualTo(1);
  }

  @Test
  void aClosedStoreOwesNothingMore() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    store.close();

    store
        .owedReleases()
        .owe(KeyLayout.permits(limiter), "x:1", KeyLayout.permitsFreed(limiter), LEASE.toNanos());
    store.retryOwed();

    assertThat(store.owedReleases().size()).isEqualTo(1);
  }

  @Test
  void aWaiterIsToldWhenAPermitIsReleasedLocally() {
    RedisStores node = node(FailurePolicy.LOCAL);
    AtomicInteger told = new AtomicInteger();
    PermitStore.Watch watch = node.permits().watch(limiter, told::incrementAndGet);
    node.guard().markDown(new IllegalStateException("test"));
    PermitLease lease = take(node.permits(), limiter, 4).orElseThrow();

    release(lease);
    assertThat(told).hasValue(1);
    watch.close();
    release(take(node.permits(), limiter, 4).orElseThrow());
    assertThat(told).hasValue(1);
  }

  @Test
  void aWaiterIsToldWhenAPermitIsReleasedOnAnyNode() {
    RedisStores watching = node(FailurePolicy.DENY);
    RedisStores other = node(FailurePolicy.DENY);
    AtomicInteger told = new AtomicInteger();
    watching.permits().watch(limiter, told::incrementAndGet);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
      // the subscription is made in the background: release until one notice arrives
      release(take(other.permits(), limiter, 1).orElseThrow());
      return told.get() > 0;
    });
  }

  @Test
  void aTicketLeavesTheLine() {
    RedisStores node = node(FailurePolicy.DENY);
    PermitLease held = take(node.permits(), limiter, 1).orElseThrow();
    assertThat(node.permits()
            .tryAcquire(limiter, 1, LEASE, "ticket-1")
            .toCompletableFuture()
            .join())
        .isEmpty();
    assertThat(REDIS.server().command("ZCARD", KeyLayout.permitLine(limiter))).isEqualTo("1");

    node.permits().leave(limiter, "ticket-1");
    // asked on the same connection after the leave, so answered after it: the line is read
    // before the ticket could expire by itself
    node.permits().held(limiter).toCompletableFuture().join();

    assertThat(REDIS.server().command("ZCARD", KeyLayout.permitLine(limiter))).isEqualTo("0");
    release(held);
  }

  @Test
  void whileDownNothingIsAskedOfRedis() {
    RedisStores node = node(FailurePolicy.DENY);
    PermitLease held = take(node.permits(), limiter, 1).orElseThrow();
    node.permits()
        .tryAcquire(limiter, 1, LEASE, "ticket-1")
        .toCompletableFuture()
        .join();
    node.guard().markDown(new IllegalStateException("test"));

    node.permits().leave(limiter, "ticket-1");

    assertThat(node.permits().held(limiter).toCompletableFuture().join()).isEqualTo(-1);
    node.guard().markUp();
    // a leave sent while down would have been answered before this count
    node.permits().held(limiter).toCompletableFuture().join();
    assertThat(REDIS.server().command("ZCARD", KeyLayout.permitLine(limiter))).isEqualTo("1");
    release(held);
  }

  @Test
  void aNodeThatCannotReachRedisDecidesLocallyAtOnce() {
    RedisStores node =
        node(URI.create("redis://127.0.0.1:" + RedisServer.freePort()), FailurePolicy.LOCAL);

    assertThat(node.state()).isEqualTo(RedisState.DOWN);
    assertThat(take(node.permits(), limiter, 4)).isPresent();
    assertThat(node.degradedDecisions()).isEqualTo(1);
  }

  @Test
  void aReleaseOnALostConnectionIsOwedAndPaidOnTheNext() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    PermitLease lease = take(store, limiter, 2).orElseThrow();
    var lost = store.link().current();
    lost.close();

    release(lease);

    assertThat(store.owedReleases().size()).isEqualTo(1);
    assertThat(inRedis()).isEqualTo(1);
    store.link().replace(lost);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
      store.retryOwed();
      return store.owedReleases().size() == 0;
    });
    assertThat(inRedis()).isZero();
  }

  @Test
  void aRenewalThatFailsIsTriedAgainAtTheNextThird() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    PermitLease lease = take(store, limiter, 2).orElseThrow();
    var lost = store.link().current();
    lost.close();
    REDIS.server().command("DEL", KeyLayout.permits(limiter));

    time.advance(LEASE.dividedBy(3));

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> time.pendingDelaysNanos().contains(LEASE.toNanos() / 3));
    store.link().replace(lost);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> store.link().isConnected());
    time.advance(LEASE.dividedBy(3));
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);
    release(lease);
  }

  @Test
  void aLimiterWatchedOnAnOpenConnectionIsSubscribedThere() {
    RedisStores watching = node(FailurePolicy.DENY);
    RedisStores other = node(FailurePolicy.DENY);
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    watching.permits().watch(limiter, first::incrementAndGet);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
      release(take(other.permits(), limiter, 1).orElseThrow());
      return first.get() > 0;
    });
    String another = limiter + "-2";

    watching.permits().watch(another, second::incrementAndGet);

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
      release(take(other.permits(), another, 1).orElseThrow());
      return second.get() > 0;
    });
    // the subscribed connection answers its PING: it is kept
    time.advance(PermitNews.CHECK_EVERY);
    time.advance(PermitNews.CHECK_EVERY);
    assertThat(((RedisPermitStore) watching.permits()).replacedNewsConnections())
        .isZero();
    assertThat(watching.replacedConnections()).isZero();
  }

  @Test
  void anAcquireThatReachesNoRedisIsDecidedByThePolicy() {
    RedisStores node = node(FailurePolicy.ALLOW);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    store.link().current().close();

    assertThat(take(store, limiter, 1)).contains(LocalPermits.NOTHING_HELD);
    assertThat(node.degradedDecisions()).isEqualTo(1);
    assertThat(inRedis()).isZero();
  }

  @Test
  void howManyAreHeldIsUnknownWhenRedisDoesNotAnswer() {
    RedisStores node = node(FailurePolicy.DENY);
    RedisPermitStore store = (RedisPermitStore) node.permits();
    PermitLease lease = take(store, limiter, 2).orElseThrow();
    assertThat(store.held(limiter).toCompletableFuture().join()).isEqualTo(1);

    store.link().current().close();

    assertThat(store.held(limiter).toCompletableFuture().join()).isEqualTo(-1);
    release(lease);
  }

  @Test
  void afterALossNoLeaseIsGrantedUntilTheNodeHasSettled() {
    RedisStores node = node(FailurePolicy.DENY);
    PermitLease held = take(node.permits(), limiter, 3).orElseThrow();
    RedisRateStore rates = (RedisRateStore) node.rates();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(rates::knowsEpoch);
    // what FLUSHALL does to the epoch and the leases, without touching the other tests' keys
    REDIS.server().command("DEL", LossWatch.EPOCH_KEY, KeyLayout.permits(limiter));

    // the script finds another epoch and grants nothing; the node learns of the loss and writes
    // the lease it holds again
    assertThat(take(node.permits(), limiter, 3)).isEmpty();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> node.health().lostStates() == 1);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> inRedis() == 1);
    assertThat(take(node.permits(), limiter, 3)).as("while settling").isEmpty();
    assertThat(node.degradedDecisions()).isZero();

    time.advance(LossWatch.POLL.multipliedBy(2).plus(TIMEOUT.multipliedBy(2)));

    assertThat(take(node.permits(), limiter, 3)).isPresent();
    release(held);
  }

  @Test
  void aSubscriptionThatStopsAnsweringIsReplacedAndSubscribedAgain() {
    try (RedisServer server = RedisServer.start()) {
      // a PING may take the connect timeout, 200 ms, before the connection counts as dead
      RedisStores watching = nodes.open(
          new StoreSettings(
              server.uri(),
              Duration.ofMillis(100),
              2,
              FailurePolicy.DENY,
              time,
              Duration.ofMillis(200)),
          time);
      AtomicInteger told = new AtomicInteger();
      watching.permits().watch(limiter, told::incrementAndGet);
      String channel = KeyLayout.permitsFreed(limiter);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> server.command("PUBSUB", "NUMSUB", channel).endsWith("\n1")
              && time.pendingDelaysNanos().contains(PermitNews.CHECK_EVERY.toNanos()));

      server.pause();
      try {
        time.advance(PermitNews.CHECK_EVERY);
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> watching.replacedConnections() == 1);
      } finally {
        server.resume();
      }

      // the new connection (opened again after a failed attempt, if the server was still
      // frozen) subscribes to the channel again
      await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
        time.advance(PermitNews.CHECK_EVERY);
        server.command("PUBLISH", channel, "freed");
        return told.get() > 0;
      });
      assertThat(watching.replacedConnections()).isEqualTo(1);
    }
  }

  @Test
  void aWatchMadeWithoutRedisSubscribesOnceRedisAnswers() {
    int port = RedisServer.freePort();
    RedisStores node = node(URI.create("redis://127.0.0.1:" + port), FailurePolicy.LOCAL);
    node.permits().watch(limiter, () -> {});
    // the pub/sub connection fails at once and is tried again after a while
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> time.pendingDelaysNanos().contains(PermitNews.RETRY.toNanos()));

    try (RedisServer late = RedisServer.onPort(port)) {
      time.advance(PermitNews.RETRY);

      String channel = KeyLayout.permitsFreed(limiter);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> late.command("PUBSUB", "NUMSUB", channel).endsWith("\n1"));
    }
  }

  @Test
  void aCallerWithoutATicketIsServedWithoutJoiningTheLine() {
    RedisStores node = node(FailurePolicy.DENY);

    PermitLease held = node.permits()
        .tryAcquire(limiter, 1, LEASE, null)
        .toCompletableFuture()
        .join()
        .orElseThrow();
    assertThat(node.permits()
            .tryAcquire(limiter, 1, LEASE, null)
            .toCompletableFuture()
            .join())
        .isEmpty();

    assertThat(REDIS.server().command("ZCARD", KeyLayout.permitLine(limiter))).isEqualTo("0");
    assertThat(node.degradedDecisions()).isZero();
    release(held);
  }

  @Test
  void aRenewalThatFindsALeaseGoneWarnsThatItIsWrittenAgain() {
    PermitStore store = node(FailurePolicy.DENY).permits();
    PermitLease lease = take(store, limiter, 2).orElseThrow();
    try (LoggedWarnings warnings = LoggedWarnings.of(LeaseRenewal.class)) {
      time.advance(LEASE.dividedBy(3));
      // renewed, nothing gone: the next renewal is scheduled once Redis answered
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> time.pendingDelaysNanos().contains(LEASE.toNanos() / 3));
      assertThat(warnings.messages()).isEmpty();
      REDIS.server().command("DEL", KeyLayout.permits(limiter));

      time.advance(LEASE.dividedBy(3));

      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> !warnings.messages().isEmpty());
      assertThat(warnings.messages())
          .singleElement()
          .asString()
          .startsWith("1 of the 1 leases this node holds on " + limiter + " had expired");
    }
    release(lease);
  }
}
