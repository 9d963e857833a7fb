package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.testing.FaultProxy;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults of the network between a node and Redis, played by a {@link FaultProxy}: connections
 * reset, a blackhole, a delay longer than the timeout. Each test prints what the fault cost.
 */
@Tag("integration")
class NetworkFaultTest {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final Duration LEASE = Duration.ofSeconds(30);

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private Nodes nodes;
  private FaultProxy proxy;
  private String limiter;

  @BeforeEach
  void open() throws Exception {
    nodes = new Nodes();
    proxy = new FaultProxy(REDIS.server().port());
    limiter = "transcode-" + UUID.randomUUID();
  }

  @AfterEach
  void close() throws Exception {
    nodes.close();
    proxy.close();
  }

  private static Optional<PermitLease> take(RedisStores node, String limiter, int max) {
    return node.permits().tryAcquire(limiter, max, LEASE).toCompletableFuture().join();
  }

  /**
   * A lease written in Redis. On a busy machine an acquire can outlast the 50 ms timeout and be
   * decided on the local share: that permit is given back and the acquire asked again.
   */
  private static PermitLease takeInRedis(RedisStores node, String limiter, int max) {
    AtomicReference<PermitLease> inRedis = new AtomicReference<>();
    await("a lease written in Redis")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> {
          Optional<PermitLease> lease = take(node, limiter, max);
          if (lease.orElse(null) instanceof RedisLease held) {
            inRedis.set(held);
            return true;
          }
          lease.ifPresent(local -> local.release().toCompletableFuture().join());
          return false;
        });
    return inRedis.get();
  }

  /** The leases Redis holds for the limiter, read beside the proxy. */
  private long leasesInRedis() {
    return Long.parseLong(REDIS.server().command("ZCARD", KeyLayout.permits(limiter)));
  }

  @Test
  void leasesReleasedWhileTheConnectionWasCutAreFreedSoonAfterRedisAnswers() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 1, FailurePolicy.LOCAL);
    PermitLease first = takeInRedis(node, limiter, 2);
    PermitLease second = takeInRedis(node, limiter, 2);
    // an acquire that timed out may have taken a lease too, released at once: wait for that
    await("the two leases, and only they, in Redis")
        .atMost(Duration.ofSeconds(5))
        .until(() -> leasesInRedis() == 2);

    proxy.cut();
    first.release().toCompletableFuture().join(); // both jobs end while Redis is unreachable
    second.release().toCompletableFuture().join();
    proxy.heal();
    long healed = System.nanoTime();

    await("both leases freed in Redis")
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> leasesInRedis() == 0);
    System.out.printf(
        "released during a cut: freed in Redis %d ms after the cut healed%n",
        (System.nanoTime() - healed) / 1_000_000);
    await("a new job gets a lease in Redis")
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          take(node, limiter, 2);
          return leasesInRedis() == 1;
        });
  }

  /**
   * Jobs on one node of two (limit 2, local share 1): every 10 ms the node asks for a lease, and a
   * job that gets one runs {@code jobMillis}. The leases Redis holds are counted every 5 ms,
   * beside the proxy.
   * During the fault, {@code during} runs; afterwards jobs must start on Redis again within 2 s,
   * Redis must never have held more than the limit plus one share, and every lease comes back.
   */
  // the delayed release is checked by the wait for every lease to come back
  @SuppressWarnings("FutureReturnValueIgnored")
  private void jobsThrough(Consumer<FaultProxy> fault, String name, int jobMillis)
      throws Exception {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    ScheduledExecutorService load = Executors.newScheduledThreadPool(2);
    AtomicLong most = new AtomicLong();
    AtomicLong startedOnRedis = new AtomicLong();
    try {
      ScheduledFuture<?> taking = load.scheduleWithFixedDelay(
          () -> take(node, limiter, 2).ifPresent(lease -> {
            if (lease instanceof RedisLease) {
              startedOnRedis.incrementAndGet();
            }
            load.schedule(() -> lease.release(), jobMillis, TimeUnit.MILLISECONDS);
          }),
          0,
          10,
          TimeUnit.MILLISECONDS);
      ScheduledFuture<?> sampling = load.scheduleWithFixedDelay(
          () -> most.accumulateAndGet(leasesInRedis(), Math::max), 0, 5, TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(5)).until(() -> startedOnRedis.get() >= 10);

      fault.accept(proxy);
      await("the node degrades")
          .atMost(Duration.ofSeconds(5))
          .until(() -> node.state() != RedisState.UP);
      long before = startedOnRedis.get();
      await("jobs run on the local share")
          .atMost(Duration.ofSeconds(5))
          .until(() -> node.degradedDecisions() > 20);
      proxy.delay(Duration.ZERO);
      proxy.heal();
      long healed = System.nanoTime();
      await("jobs start on Redis again")
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> startedOnRedis.get() > before + 2);
      long back = (System.nanoTime() - healed) / 1_000_000;
      // a periodic task that threw has stopped without a word: its future is then done
      assertThat(taking.isDone()).as("the load task still runs").isFalse();
      assertThat(sampling.isDone()).as("the sampling task still runs").isFalse();
      load.shutdown(); // the jobs running end (their releases are delayed tasks), no new ones
      assertThat(load.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      await("every lease comes back")
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> leasesInRedis() == 0);
      System.out.printf(
          "%s: jobs on Redis again %d ms after the fault ended; at most %d leases "
              + "in Redis (limit 2, share 1)%n",
          name, back, most.get());
      assertThat(most.get()).isLessThanOrEqualTo(3);
    } finally {
      load.shutdownNow();
    }
  }

  @Test
  void answersLaterThanTheTimeoutLeaveNoGhostLeases() throws Exception {
    jobsThrough(p -> p.delay(Duration.ofMillis(200)), "200 ms round trip", 30);
  }

  @Test
  void aBlackholeLeavesNoGhostLeases() throws Exception {
    jobsThrough(FaultProxy::blackhole, "blackhole", 30);
  }

  /**
   * Some calls answer in time and some do not: permits granted on the local share are written to
   * Redis while they run, and a write whose answer was lost must not stay behind as a lease.
   */
  @Test
  void twentyPercentLossLeavesNoGhostLeases() throws Exception {
    jobsThrough(p -> p.loss(0.2), "20% loss", 300);
  }

  /**
   * The connection's peer goes silent without closing (a frozen Redis, a blackhole): the node
   * counts Redis as down within a few timeouts, finds that a PING gets no answer either, and opens
   * a new connection, which here reaches Redis again.
   */
  @Test
  void aConnectionThatStopsAnsweringIsReplaced() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    awaitUp(node);

    proxy.freezeOpen();
    long frozen = System.nanoTime();
    await("counted down")
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> {
          Nodes.decide(node, probe(), Duration.ofSeconds(1));
          return node.state() != RedisState.UP;
        });
    long down = System.nanoTime();
    awaitUp(node);
    long up = System.nanoTime();

    System.out.printf(
        "a connection gone silent: down after %d ms, on a new connection after %d " + "ms%n",
        (down - frozen) / 1_000_000, (up - frozen) / 1_000_000);
    assertThat(node.replacedConnections()).isEqualTo(1);
    assertThat(Duration.ofNanos(up - frozen)).isLessThan(Duration.ofSeconds(5));
  }

  /**
   * The pub/sub connection of the lease notices goes silent without closing: it has no calls that
   * could time out, so its own PING finds it, and the node subscribes again on a new connection.
   * Without that, no notice would reach the node's waiters while the old socket lived.
   */
  @Test
  void aSilentPubSubConnectionIsReplacedAndSubscribedAgain() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    AtomicInteger notices = new AtomicInteger();
    node.permits().watch(limiter, notices::incrementAndGet);
    String channel = KeyLayout.permitsFreed(limiter);
    AtomicInteger sent = new AtomicInteger(); // PUBLISH answers how many subscribers it reached
    await("subscribed")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          sent.addAndGet(
              Integer.parseInt(REDIS.server().command("PUBLISH", channel, "x").trim()));
          return notices.get() > 0;
        });
    await("nothing in flight")
        .atMost(Duration.ofSeconds(5))
        .until(() -> notices.get() == sent.get());

    proxy.freezeOpen();
    long frozen = System.nanoTime();
    int before = notices.get();
    await("a notice arrives on a new subscription")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          REDIS.server().command("PUBLISH", channel, "x");
          return notices.get() > before;
        });

    System.out.printf(
        "a silent pub/sub connection: notices arrive again %d ms after it went " + "silent%n",
        (System.nanoTime() - frozen) / 1_000_000);
    assertThat(node.replacedConnections()).isEqualTo(1);
  }

  /**
   * A Redis that comes and goes (three cuts within seconds) gives one pair of warnings, and the
   * node still follows it: down during each cut, up after each.
   */
  @Test
  void aFlappingRedisLogsOnePairOfWarnings() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    awaitUp(node);
    ch.qos.logback.classic.Logger log =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(RedisStores.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
        new ch.qos.logback.core.read.ListAppender<>();
    events.start();
    log.addAppender(events);
    try {
      for (int i = 0; i < 3; i++) {
        proxy.cut();
        await("counted down")
            .atMost(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> {
              Nodes.decide(node, probe(), Duration.ofSeconds(1));
              return node.state() != RedisState.UP;
            });
        proxy.heal();
        awaitUp(node);
      }
    } finally {
      log.detachAppender(events);
    }

    assertThat(events.list)
        .filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
        .extracting(e -> e.getFormattedMessage().contains("counts as down") ? "down" : "back")
        .containsExactly("down", "back");
  }

  /**
   * A node's first epoch question is read while the key is still missing, and answered (200 ms
   * later) after a decision script wrote the epoch and the node learnt it: no loss.
   */
  @Test
  void anEpochAnswerOlderThanWhatTheNodeLearntIsNoLoss() throws Exception {
    StoreSettings settings = Nodes.settings(
        proxy.uri(), Duration.ofSeconds(1), 2, FailurePolicy.LOCAL, NanoClock.system());
    CallBound bound = new CallBound(settings);
    bound.started(); // a node past its start-up
    try (Link link = new Link(settings, UriOptions.parse(proxy.uri()), bound)) {
      link.connect().get(5, TimeUnit.SECONDS);
      var redis = link.commands();
      AtomicInteger charged = new AtomicInteger();
      LossWatch loss = new LossWatch(
          link,
          NanoClock.system(),
          Scheduler.system(),
          bound,
          true,
          r -> charged.incrementAndGet());
      proxy.delay(Duration.ofMillis(200));

      var asked = loss.ask(redis);
      loss.scriptSaw("1700000000000001", redis); // a script's answer, learnt meanwhile
      asked.get(5, TimeUnit.SECONDS);

      assertThat(loss.losses()).isZero();
      assertThat(charged.get()).isZero();
      loss.close();
    }
  }

  /** A node that decides nothing still notices that Redis answers again, by its own probes. */
  @Test
  void anIdleNodeIsBackOnRedisWithoutARequest() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    awaitUp(node);
    proxy.cut();
    await("counted down")
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> {
          Nodes.decide(node, probe(), Duration.ofSeconds(1));
          return node.state() != RedisState.UP;
        });

    proxy.heal();
    long healed = System.nanoTime();
    await("up with no request")
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> node.state() == RedisState.UP);
    System.out.printf(
        "an idle node: up %d ms after the cut healed%n", (System.nanoTime() - healed) / 1_000_000);
  }

  /**
   * Redis answers, but each round trip (200 ms) is longer than the timeout (50 ms): every decision
   * is made locally, and the node says the timeout, not Redis, is the problem.
   */
  @Test
  void aSlowRedisIsToldApartFromADeadOne() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL);
    awaitUp(node);

    proxy.delay(Duration.ofMillis(200));
    await("advice to raise the timeout")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          Nodes.decide(node, probe(), Duration.ofSeconds(1));
          return node.describe().contains("slow: a PING took");
        });

    System.out.println("a 200 ms round trip: " + node.describe());
    assertThat(node.describe()).contains("sluice.redis.timeout is 50 ms");
    assertThat(node.replacedConnections()).isZero();
    proxy.delay(Duration.ZERO);
    awaitUp(node);
    assertThat(node.describe()).doesNotContain("slow");
  }

  private static RateRequest probe() {
    return new RateRequest(
        "probe-" + UUID.randomUUID(),
        "p",
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(10, Duration.ofSeconds(1)),
        1);
  }

  /** Decisions on fresh keys until the node counts Redis as up (each one pays debts first). */
  private static void awaitUp(RedisStores node) {
    await("back on Redis")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          Nodes.decide(
              node,
              new RateRequest(
                  "probe-" + UUID.randomUUID(),
                  "p",
                  Algorithm.TOKEN_BUCKET,
                  RateLimit.of(10, Duration.ofSeconds(1)),
                  1),
              Duration.ofSeconds(1));
          return node.state() == RedisState.UP;
        });
  }

  /**
   * One account at 4 a second, under a rule of 600 a minute (10 a second), on two nodes, through a
   * 30 s outage (on the node's virtual clock). It never went beyond its rate, so when Redis answers
   * again its next request passes: the charge adds only what is left of the backlog its
   * admissions made, not 120 admissions dated now (12 s of a bucket that holds 1 s).
   */
  @Test
  void anActorWithinItsRateIsNotRefusedAfterAnOutage() {
    VirtualTime clock = new VirtualTime();
    RedisStores node = nodes.open(
        Nodes.settings(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL, clock), Scheduler.system());
    RateRequest account = new RateRequest(
        "history-" + UUID.randomUUID(),
        "account-42",
        Algorithm.TOKEN_BUCKET,
        new RateLimit(600, Duration.ofMinutes(1), 10),
        1);
    assertThat(Nodes.decide(node, account, Duration.ofSeconds(2)).allowed()).isTrue();

    proxy.cut();
    int admitted = 0;
    for (int i = 0; i < 120; i++) {
      clock.advance(Duration.ofMillis(250));
      admitted += Nodes.decide(node, account, Duration.ofSeconds(2)).allowed() ? 1 : 0;
    }
    assertThat(admitted).as("within the local share (5 a second)").isEqualTo(120);
    assertThat(node.state()).isNotEqualTo(RedisState.UP);
    proxy.heal();
    awaitUp(node);

    clock.advance(Duration.ofMillis(250));
    RateDecision next = Nodes.decide(node, account, Duration.ofSeconds(2));
    System.out.printf(
        "after a 30 s outage at 4/s under 10/s: next request %s, %d remaining of " + "10%n",
        next.allowed() ? "allowed" : "refused", next.remaining());
    assertThat(next.allowed()).isTrue();
    assertThat(next.remaining()).isGreaterThanOrEqualTo(7);
  }

  /**
   * A charge sent while every answer comes too late (200 ms against the 50 ms timeout) runs in
   * Redis, and is sent again: Redis counts it once. Three admissions on the local share under a
   * rule of 6 per 10 minutes (one every 100 s, burst 6) owe 300 s of the bucket's 600 s; counted
   * twice they would owe all of it and the next request would be refused. One every 100 s, not
   * faster: the charge may run in Redis seconds before the last request (the wait for its second
   * run alone may take 10 s), and the refill meanwhile must not reach a whole permit.
   */
  @Test
  void aChargeWhoseAnswerWasLostIsCountedOnce() {
    VirtualTime clock = new VirtualTime();
    RedisStores node = nodes.open(
        Nodes.settings(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL, clock), Scheduler.system());
    RateRequest account = new RateRequest(
        "history-" + UUID.randomUUID(),
        "account-7",
        Algorithm.TOKEN_BUCKET,
        new RateLimit(6, Duration.ofMinutes(10), 6),
        1);
    awaitUp(node);

    proxy.cut();
    for (int i = 0; i < 3; i++) {
      assertThat(Nodes.decide(node, account, Duration.ofSeconds(2)).allowed()).isTrue();
    }
    assertThat(Nodes.decide(node, account, Duration.ofSeconds(2)).allowed())
        .as("the local share's burst is 3")
        .isFalse();
    logEverything();
    proxy.delay(Duration.ofMillis(200));
    proxy.heal();
    String state = KeyLayout.rate(account.ruleId(), account.key(), account.algorithm());
    // every call times out; the probes among them send the charge again
    await("the charge ran in Redis twice, unanswered")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> {
          Nodes.decide(
              node,
              new RateRequest(
                  "probe-" + UUID.randomUUID(),
                  "p",
                  Algorithm.TOKEN_BUCKET,
                  RateLimit.of(10, Duration.ofSeconds(1)),
                  1),
              Duration.ofSeconds(1));
          return callsOn(state) >= 2;
        });
    proxy.delay(Duration.ZERO);
    awaitUp(node);

    RateDecision next = Nodes.decide(node, account, Duration.ofSeconds(2));
    System.out.printf(
        "a charge of 3 sent while answers came late: next request %s, %d " + "remaining of 6%n",
        next.allowed() ? "allowed" : "refused", next.remaining());
    assertThat(next.allowed()).isTrue();
    assertThat(next.remaining()).isEqualTo(2);
  }

  /** How many commands Redis ran on {@code key} since the slow log was reset (logEverything). */
  private static long callsOn(String key) {
    return REDIS
        .server()
        .command("SLOWLOG", "GET", "100000")
        .lines()
        .filter(key::equals)
        .count();
  }

  /** The slow log keeps every command with its arguments, so a test can count what ran. */
  private static void logEverything() {
    REDIS.server().command("CONFIG", "SET", "slowlog-log-slower-than", "0");
    REDIS.server().command("CONFIG", "SET", "slowlog-max-len", "100000");
    REDIS.server().command("SLOWLOG", "RESET");
  }
}
