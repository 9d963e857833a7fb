package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.testing.ConcurrencyHistory;
import dev.sluice.testing.ConcurrencyHistory.Job;
import dev.sluice.testing.FaultProxy;
import dev.sluice.testing.RateHistory;
import dev.sluice.testing.RateHistory.Allowance;
import dev.sluice.testing.RateHistory.Decision;
import dev.sluice.testing.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A nemesis, as Jepsen's: a random schedule of faults, from a seed, against two nodes deciding one
 * token-bucket rule through Redis, and the whole history checked afterwards. Two hot accounts ask
 * about six times the rule's rate; a calm one asks half of it. The checks: no interval of any
 * account holds more than the rule plus the failure table's allowance for the faults it overlaps
 * (one local share from the fault until both nodes are on Redis again and the settling time has
 * passed, then a permit per node for a period), and the calm account is never refused outside a
 * fault when the exact rule would have admitted it. Beside them, each node runs jobs under one
 * global concurrency limit of 2 (leases in Redis): never more jobs at once across both nodes than
 * the limit, plus one local share while a fault lasts (and, should this JVM itself stand still past
 * two thirds of the lease time on a busy machine, the limit again while the jobs that ran through
 * the pause end: their leases may have expired, as a paused node's do in the failure table). A
 * failing schedule replays with {@code -Dtest.seed=N} (the seed and the schedule are printed).
 */
@Tag("integration")
class NemesisTest {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final Duration PERIOD = Duration.ofSeconds(5);
  private static final int LIMIT = 20;
  private static final int FAULTS = 4;
  private static final int JOBS_AT_ONCE = 2;

  /**
   * A pause of the whole test JVM after which a lease of a running job may have expired: leases
   * live {@link ConcurrencyLimiter#DEFAULT_LEASE_TIME} (3 s) and are renewed every third of it.
   */
  private static final Duration STALL =
      ConcurrencyLimiter.DEFAULT_LEASE_TIME.multipliedBy(2).dividedBy(3);

  /** After a fault has healed and both nodes are on Redis: the settling time of an emptied Redis. */
  private static final Duration SETTLE = Duration.ofMillis(1_500);

  /** What the nemesis can do, and how it ends each fault. */
  private enum Fault {
    RESET,
    BLACKHOLE,
    DELAY,
    LOSS,
    RESTART_EMPTY,
    PAUSE,
    FLUSHALL
  }

  /** One fault as it happened: injected, healed, and when both nodes were settled on Redis again. */
  private record Injected(Fault fault, long fromNanos, long healedNanos, long settledNanos) {}

  private record Answer(String account, long askedNanos, long answeredNanos, boolean allowed) {}

  private RedisServer redis;
  private FaultProxy proxy;
  private Nodes nodes;
  private ScheduledExecutorService callers;
  private final List<ConcurrencyLimiter> limiters = new ArrayList<>();
  private final ScheduledExecutorService jobEnds = Executors.newSingleThreadScheduledExecutor();
  private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void open() throws Exception {
    redis = RedisServer.start();
    proxy = new FaultProxy(redis.port());
    nodes = new Nodes();
    callers = Executors.newScheduledThreadPool(3);
  }

  @AfterEach
  void close() throws Exception {
    callers.shutdownNow();
    callers.awaitTermination(5, TimeUnit.SECONDS);
    watch.shutdownNow();
    jobEnds.shutdown();
    jobEnds.awaitTermination(5, TimeUnit.SECONDS);
    limiters.forEach(ConcurrencyLimiter::shutdown);
    nodes.close();
    proxy.close();
    redis.close();
  }

  @Test
  // the callers are stopped by shutdownNow; a failed decision shows as a missing answer
  @SuppressWarnings("FutureReturnValueIgnored")
  void aRandomScheduleOfFaultsKeepsEveryAccountWithinTheRuleAndItsAllowances() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    List<RedisStores> both = List.of(
        nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL),
        nodes.open(proxy.uri(), TIMEOUT, 2, FailurePolicy.LOCAL));
    String rule = "nemesis-" + UUID.randomUUID();
    RateLimit limit = new RateLimit(LIMIT, PERIOD, LIMIT);
    ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Job> jobs = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Job> jobsOnShare = new ConcurrentLinkedQueue<>();
    BooleanSupplier bothUp = () -> both.stream().allMatch(s -> s.state() == RedisState.UP);
    // the nodes are opened as past their start-up (a call is bounded by the 50 ms timeout from
    // the first, StartUpTest covers a starting node): the accounts ask once both are connected
    await("both nodes on Redis").atMost(Duration.ofSeconds(30)).until(bothUp::getAsBoolean);
    long origin = System.nanoTime();
    // a decision made without Redis outside a fault is a slow call (the timeout ran out first):
    // the failure table allows one beyond the limit for each; the watch notes when they happen
    ConcurrentLinkedQueue<Long> slowCalls = new ConcurrentLinkedQueue<>();
    long[] degraded = {0};
    // the watch also notes when this JVM (both nodes) stood still long enough for the leases of
    // its running jobs to expire in Redis: a pause the failure table documents, not a fault made
    ConcurrentLinkedQueue<long[]> stalls = new ConcurrentLinkedQueue<>();
    long[] lastTick = {System.nanoTime() - origin};
    watch.scheduleWithFixedDelay(
        () -> {
          long tick = System.nanoTime() - origin;
          if (tick - lastTick[0] >= STALL.toNanos()) {
            stalls.add(new long[] {lastTick[0], tick});
          }
          lastTick[0] = tick;
          long now = both.stream().mapToLong(RedisStores::degradedDecisions).sum();
          for (long i = degraded[0]; i < now; i++) {
            slowCalls.add(System.nanoTime() - origin);
          }
          degraded[0] = now;
        },
        0,
        10,
        TimeUnit.MILLISECONDS);
    for (int n = 0; n < 2; n++) {
      RedisStores node = both.get(n);
      for (String account : List.of("hot-1", "hot-2")) {
        ask(node, rule, account, limit, answers, origin, 40);
      }
      ask(node, rule, "calm", limit, answers, origin, 1_000);
      runJobs("node-" + n, node, jobs, jobsOnShare, origin);
    }
    pause(Duration.ofSeconds(2));

    List<Injected> schedule = new ArrayList<>();
    for (int i = 0; i < FAULTS; i++) {
      Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
      Duration lasts = Duration.ofMillis(1_000 + random.nextInt(2_000));
      long from = System.nanoTime();
      inject(fault);
      if (fault != Fault.FLUSHALL) {
        pause(lasts);
      }
      heal(fault);
      long healed = System.nanoTime();
      await("both nodes on Redis again after " + fault + " (seed " + seed + ")")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(10))
          .until(bothUp::getAsBoolean);
      long settled = System.nanoTime() + SETTLE.toNanos();
      schedule.add(new Injected(fault, from - origin, healed - origin, settled - origin));
      pause(SETTLE.plusMillis(1_000 + random.nextInt(1_000)));
    }
    pause(PERIOD);
    callers.shutdownNow();
    await("the last jobs end")
        .atMost(Duration.ofSeconds(10))
        .until(() -> limiters.stream().allMatch(l -> l.snapshot().inFlight() == 0));

    List<Allowance> duringFaults = new ArrayList<>();
    List<Allowance> slowCallsOutsideFaults = new ArrayList<>();
    List<Allowance> withAfter = new ArrayList<>();
    for (Injected f : schedule) {
      Allowance during =
          new Allowance(f.fault().name(), f.fromNanos(), f.settledNanos(), LIMIT / 2);
      duringFaults.add(during);
      withAfter.add(during);
      withAfter.add(new Allowance(
          "after " + f.fault(), f.settledNanos(), f.settledNanos() + PERIOD.toNanos(), 2));
    }
    for (long at : slowCalls) {
      boolean inFault =
          duringFaults.stream().anyMatch(f -> at >= f.fromNanos() && at < f.toNanos());
      if (!inFault) {
        // the call began up to a timeout before it was counted, and the watch itself may run
        // late on a busy machine: 200 ms of slack either side of the tick that saw it
        Allowance slow = new Allowance("slow call", at - 250_000_000L, at + 200_000_000L, 1);
        withAfter.add(slow);
        slowCallsOutsideFaults.add(slow);
      }
    }
    List<Decision> history = answers.stream()
        .map(a -> new Decision(a.account(), a.askedNanos(), a.answeredNanos(), a.allowed(), 1))
        .toList();
    RateHistory.Report all = RateHistory.checkBucket(history, LIMIT, PERIOD, LIMIT, withAfter, 1.0);
    RateHistory.Report calm = RateHistory.checkBucket(
        history.stream().filter(d -> d.actor().equals("calm")).toList(),
        LIMIT,
        PERIOD,
        LIMIT,
        duringFaults,
        1.0);
    // a job's permit taken on a share (in a fault, or by a slow call) runs its 100 ms on
    List<Allowance> oneShare = new ArrayList<>();
    duringFaults.forEach(
        a -> oneShare.add(new Allowance(a.fault(), a.fromNanos(), a.toNanos(), JOBS_AT_ONCE / 2)));
    // a job that may have run on the local share outside a fault (its node made a decision
    // without Redis between its ask and its grant: a slow call) may be one beyond the limit while
    // it runs; noted on the job itself, as the watch's tick can come late on a busy machine
    for (Job j : jobsOnShare) {
      boolean inFault = duringFaults.stream()
          .anyMatch(f -> j.endedNanos() > f.fromNanos() && j.startedNanos() < f.toNanos());
      if (!inFault) {
        oneShare.add(new Allowance("slow call", j.startedNanos(), j.endedNanos(), 1));
      }
    }
    // a stall of the whole JVM past 2/3 of the lease time: the jobs running through it may lose
    // their leases to the waiters, as a paused node's do (the limit's worth, while they end)
    stalls.forEach(st ->
        oneShare.add(new Allowance("JVM stalled", st[0], st[1] + 500_000_000L, JOBS_AT_ONCE)));
    ConcurrencyHistory.Report running = ConcurrencyHistory.check(jobs, JOBS_AT_ONCE, oneShare);
    String told = String.format(
        "seed %d, schedule %s, %d slow calls outside them, %s: %s; the calm account: %s; jobs: %s",
        seed,
        describe(schedule),
        slowCallsOutsideFaults.size(),
        stalls.isEmpty()
            ? "no stall of this JVM"
            : stalls.stream()
                .map(st -> String.format("this JVM stalled %.3f-%.3f s", st[0] / 1e9, st[1] / 1e9))
                .toList(),
        all.summary(),
        calm.summary(),
        running.summary());
    if (!running.withinLimit()) {
      long at = running.overruns().get(0).atNanos();
      told += "; the jobs running then: "
          + jobs.stream()
              .filter(j -> j.startedNanos() <= at && j.endedNanos() > at)
              .map(j -> String.format(
                  "%s %.3f-%.3f s", j.node(), j.startedNanos() / 1e9, j.endedNanos() / 1e9))
              .toList();
    }
    System.out.println(told);

    assertThat(history.stream().filter(d -> d.actor().equals("calm")).count())
        .as("the calm account kept asking: %s", told)
        .isGreaterThan(20L);
    assertThat(all.overAdmissions()).as(told).isEmpty();
    assertThat(calm.underAdmissions()).as(told).isEmpty();
    assertThat(running.jobs()).as("jobs ran: %s", told).isGreaterThan(20);
    assertThat(running.withinLimit()).as(told).isTrue();
  }

  /**
   * A global limiter on {@code node}: a caller every 30 ms, each job 100 ms from its grant, its
   * start and end recorded on the test's clock when they happen; a job whose node decided
   * anything without Redis between its ask and its grant goes in {@code onShare} too.
   */
  // the callers are stopped by shutdownNow; a refused or failed acquire is simply not a job
  @SuppressWarnings("FutureReturnValueIgnored")
  private void runJobs(
      String name,
      RedisStores node,
      ConcurrentLinkedQueue<Job> jobs,
      ConcurrentLinkedQueue<Job> onShare,
      long origin) {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("nemesis-jobs")
        .spec(LimiterSpec.custom()
            .maxConcurrency(JOBS_AT_ONCE)
            .maxQueue(4)
            .queueTimeout(Duration.ofSeconds(2))
            .build())
        .permitStore(node.permits())
        .build();
    limiters.add(limiter);
    callers.scheduleWithFixedDelay(
        () -> {
          long degradedBefore = node.degradedDecisions();
          limiter.acquire().thenAccept(permit -> {
            long started = System.nanoTime() - origin;
            boolean maybeOnShare = node.degradedDecisions() > degradedBefore;
            jobEnds.schedule(
                () -> {
                  Job job = new Job(name, started, System.nanoTime() - origin);
                  jobs.add(job);
                  if (maybeOnShare) {
                    onShare.add(job);
                  }
                  permit.release();
                },
                100,
                TimeUnit.MILLISECONDS);
          });
        },
        0,
        30,
        TimeUnit.MILLISECONDS);
  }

  // the callers are stopped by shutdownNow in the test and in close()
  @SuppressWarnings("FutureReturnValueIgnored")
  private void ask(
      RedisStores node,
      String rule,
      String account,
      RateLimit limit,
      ConcurrentLinkedQueue<Answer> answers,
      long origin,
      long everyMillis) {
    RateRequest request = new RateRequest(rule, account, Algorithm.TOKEN_BUCKET, limit, 1);
    callers.scheduleWithFixedDelay(
        () -> {
          long asked = System.nanoTime();
          RateDecision decision = Nodes.decide(node, request, Duration.ofSeconds(5));
          answers.add(
              new Answer(account, asked - origin, System.nanoTime() - origin, decision.allowed()));
        },
        0,
        everyMillis,
        TimeUnit.MILLISECONDS);
  }

  private void inject(Fault fault) {
    switch (fault) {
      case RESET -> proxy.cut();
      case BLACKHOLE -> proxy.blackhole();
      case DELAY -> proxy.delay(Duration.ofMillis(200));
      case LOSS -> proxy.loss(0.2);
      case RESTART_EMPTY -> redis.kill();
      case PAUSE -> redis.pause();
      case FLUSHALL -> redis.command("FLUSHALL");
    }
  }

  private void heal(Fault fault) {
    switch (fault) {
      case RESTART_EMPTY -> redis.restart();
      case PAUSE -> redis.resume();
      default -> {
        proxy.delay(Duration.ZERO);
        proxy.heal();
      }
    }
  }

  private static String describe(List<Injected> schedule) {
    StringBuilder text = new StringBuilder();
    for (Injected f : schedule) {
      text.append(String.format(
          "%s %.2f-%.2f s (settled %.2f s) ",
          f.fault(), f.fromNanos() / 1e9, f.healedNanos() / 1e9, f.settledNanos() / 1e9));
    }
    return text.toString().trim();
  }

  /** Lets the callers run for {@code d} (the schedule's own pace, not a wait for a condition). */
  private static void pause(Duration d) {
    long until = System.nanoTime() + d.toNanos();
    await()
        .atMost(d.plusSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> System.nanoTime() - until >= 0);
  }
}
