package dev.sluice.concurrency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads acquire, cancel, release (twice, sometimes), time out and change the limit at
 * random, on real threads and a real executor; virtual time moves on its own thread so timeouts
 * race grants and cancels. Then the invariants: never more holders than the limit, every attempt
 * decided exactly once, waiters granted in queue order (within a key and class, for the fair and
 * prioritized queues, where key caps and displacement race the rest too), and after everything is
 * given back the limiter has exactly its capacity again (no leaked and no extra permit).
 *
 * <p>Each run prints its seed on failure; {@code -Dtest.seed=N} replays the workers'
 * random choices (thread interleavings are the machine's).
 */
@Tag("stress")
class ConcurrencyLimiterStressTest {

  /** Keys the workers ask under: few, so that keys really queue behind each other and hit caps. */
  private static final int KEYS = 5;

  private static final Priority[] CLASSES = Priority.values();

  private static final int WORKERS = 6;
  private static final int OPS_PER_WORKER = 20_000;

  @Test
  void fixedLimitIsNeverExceededAndNoPermitLeaks() throws Exception {
    Result result = run(false, WaitQueue::fifo, false);

    assertThat(result.maxHolders).as("holders never above the limit").isLessThanOrEqualTo(4);
    assertThat(result.maxHolders).as("the load did saturate the limiter").isEqualTo(4);
  }

  @Test
  void changingLimitsLoseAndInventNoPermit() throws Exception {
    Result result = run(true, WaitQueue::fifo, false);

    assertThat(result.maxHolders).as("never above the largest limit set").isLessThanOrEqualTo(6);
  }

  /** Early rejections (at arrival and at re-checks) race grants, cancels and timeouts too. */
  @Test
  void rejectingEarlyLosesAndInventsNoPermit() throws Exception {
    Result result = run(true, WaitQueue::fifo, false, true);

    assertThat(result.maxHolders).as("never above the largest limit set").isLessThanOrEqualTo(6);
  }

  @Test
  void fairQueueWithKeyCapsLosesNoPermitAndKeepsOrderWithinAKey() throws Exception {
    Result result = run(
        true,
        () -> WaitQueue.fair(
            FairQueueConfig.builder().maxQueuePerKey(3).keyWeight("k0", 2).build()),
        true);

    assertThat(result.maxHolders).isLessThanOrEqualTo(6);
    assertThat(result.queue.rejectedKeyCap()).as("key caps were exercised").isPositive();
  }

  @Test
  void prioritizedFairQueueDisplacesAndLosesNoPermit() throws Exception {
    Result result = run(
        true,
        () -> WaitQueue.prioritized(FairQueueConfig.builder().maxQueuePerKey(3).build()),
        true);

    assertThat(result.maxHolders).isLessThanOrEqualTo(6);
    assertThat(result.queue.displaced()).as("displacement was exercised").isPositive();
    assertThat(result.queue.rejectedKeyCap()).as("key caps were exercised").isPositive();
  }

  private Result run(boolean changeLimits, Supplier<WaitQueue> discipline, boolean callers)
      throws Exception {
    return run(changeLimits, discipline, callers, false);
  }

  /**
   * Standing-queue control: newest-first grants and sheds race grants, cancels, timeouts, early
   * rejections and costs; grants are not FIFO within a key then, so only the accounting is checked.
   */
  @Test
  void standingQueueControlWithCostsLosesAndInventsNoPermit() throws Exception {
    Result result = run(
        true,
        () -> WaitQueue.prioritized(FairQueueConfig.builder().maxQueuePerKey(3).build()),
        true,
        true,
        Duration.ofMillis(1));

    assertThat(result.maxHolders).isLessThanOrEqualTo(6);
    assertThat(result.snapshot.rejectedLate()).as("late answers were exercised").isPositive();
  }

  private Result run(
      boolean changeLimits, Supplier<WaitQueue> discipline, boolean callers, boolean rejectEarly)
      throws Exception {
    return run(changeLimits, discipline, callers, rejectEarly, Duration.ZERO);
  }

  // Thread.yield() shakes the interleavings of the stress test's threads on 2 cores
  @SuppressWarnings("ThreadPriorityCheck")
  private Result run(
      boolean changeLimits,
      Supplier<WaitQueue> discipline,
      boolean callers,
      boolean rejectEarly,
      Duration delayTarget)
      throws Exception {
    long seed = Seeds.seed();
    VirtualTime time = new VirtualTime();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("stress")
        .spec(LimiterSpec.custom()
            .maxConcurrency(4)
            .maxQueue(8)
            // with standing-queue control, long enough for the queue to stand (100 ms floor)
            .queueTimeout(delayTarget.isZero() ? Duration.ofMillis(5) : Duration.ofMillis(300))
            .rejectEarly(rejectEarly)
            .queueDelayTarget(delayTarget)
            .queue(QueueSpec.of("discipline", discipline))
            .build())
        .clock(time)
        .scheduler(time)
        .executor(executor)
        .build();

    AtomicInteger holders = new AtomicInteger();
    AtomicInteger maxHolders = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    Queue<CompletableFuture<Permit>> allFutures = new ConcurrentLinkedQueue<>();
    Queue<Permit> allPermits = new ConcurrentLinkedQueue<>();
    Queue<Attempt> allAttempts = new ConcurrentLinkedQueue<>();
    AtomicBoolean workersDone = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);

    Thread clock = new Thread(
        () -> {
          SplittableRandom random = new SplittableRandom(seed);
          while (!workersDone.get()) {
            time.advanceNanos(random.nextLong(50_000));
            Thread.yield();
          }
        },
        "virtual-clock");
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int w = 0; w < WORKERS; w++) {
      SplittableRandom random = new SplittableRandom(seed + w + 1);
      Thread worker = new Thread(
          () -> {
            try {
              start.await();
              work(
                  random,
                  limiter,
                  time,
                  changeLimits,
                  callers,
                  holders,
                  maxHolders,
                  attempts,
                  allFutures,
                  allPermits,
                  allAttempts);
            } catch (Throwable t) {
              failures.add(t);
            }
          },
          "stress-" + w);
      workers.add(worker);
      worker.start();
    }
    clock.start();
    start.countDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(60));
    }
    workersDone.set(true);
    clock.join();
    assertThat(failures).as("seed " + seed).isEmpty();

    // wind down: cancel whoever still waits, let every deadline pass, let the executor finish
    allFutures.forEach(f -> f.cancel(false));
    time.advance(Duration.ofHours(1));
    executor.shutdown();
    assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    // every future was completed (by grant, rejection or cancellation): none is stranded
    assertThat(allFutures).allSatisfy(f -> assertThat(f).isDone());
    // give back every permit ever granted; release is idempotent, so repeats must be harmless
    allFutures.stream()
        .filter(f -> !f.isCompletedExceptionally())
        .forEach(f -> f.join().release());
    allPermits.forEach(Permit::release);

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(snapshot.inFlight())
        .as("seed " + seed + ": in flight after all released")
        .isZero();
    assertThat(snapshot.queued()).isZero();
    long decided = snapshot.admitted()
        + snapshot.rejectedQueueFull()
        + snapshot.rejectedQueueTimeout()
        + snapshot.cancelled()
        + snapshot.rejectedShutdown();
    assertThat(decided).as("every attempt decided exactly once").isEqualTo(attempts.get());
    if (delayTarget.isZero()) { // with standing-queue control waiters are shed before that
      assertThat(snapshot.rejectedQueueTimeout()).as("timeouts were exercised").isPositive();
    }
    assertThat(snapshot.cancelled()).as("cancellations were exercised").isPositive();
    assertThat(snapshot.queuedTotal()).isPositive();

    if (delayTarget.isZero()) {
      assertFifoWithinKeyAndClass(allAttempts, seed);
    }
    QueueSnapshot queue = limiter.queueSnapshot();
    assertAnswersMatchCounts(allAttempts, queue, seed);
    Set<Permit> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    distinct.addAll(allPermits);
    assertThat(distinct).as("no permit object handed out twice").hasSameSizeAs(allPermits);

    // full capacity, exactly: no permit leaked, none invented
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(5).build());
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.tryAcquire()).as("seed " + seed + ": permit " + i).isPresent();
    }
    assertThat(limiter.tryAcquire()).as("seed " + seed + ": a sixth permit").isEmpty();
    return new Result(maxHolders.get(), queue, snapshot);
  }

  // FutureReturnValueIgnored: the callbacks record each grant, and the test checks that record;
  // ThreadPriorityCheck: Thread.yield() shakes the interleavings of the threads on 2 cores
  @SuppressWarnings({"checkstyle:ParameterNumber", "FutureReturnValueIgnored", "ThreadPriorityCheck"
  })
  private static void work(
      SplittableRandom random,
      ConcurrencyLimiter limiter,
      VirtualTime time,
      boolean changeLimits,
      boolean callers,
      AtomicInteger holders,
      AtomicInteger maxHolders,
      AtomicLong attempts,
      Queue<CompletableFuture<Permit>> allFutures,
      Queue<Permit> allPermits,
      Queue<Attempt> allAttempts) {
    List<CompletableFuture<Permit>> pending = new ArrayList<>();
    List<Permit> held = new ArrayList<>();
    Queue<Permit> granted = new ConcurrentLinkedQueue<>();
    for (int op = 0; op < OPS_PER_WORKER; op++) {
      // permits granted to this worker's futures arrive on executor threads
      for (Permit p = granted.poll(); p != null; p = granted.poll()) {
        held.add(p);
      }
      pending.removeIf(CompletableFuture::isDone);
      int dice = random.nextInt(100);
      if (dice < 40) {
        attempts.incrementAndGet();
        Caller caller = callers ? randomCaller(random) : Caller.DEFAULT;
        CompletableFuture<Permit> future = limiter.acquire(caller);
        allFutures.add(future);
        allAttempts.add(new Attempt(callers ? caller : Caller.DEFAULT, future));
        future.thenAccept(permit -> {
          // counted as soon as the continuation runs, i.e. while the permit is surely held;
          // in units of the limit (a caller of cost 2 holds two)
          maxHolders.accumulateAndGet(holders.addAndGet(units(permit)), Math::max);
          allPermits.add(permit);
          granted.add(permit);
        });
        if (!future.isDone()) {
          pending.add(future);
        } else if (future.isCompletedExceptionally()) {
          // rejected at once: let the holders (maybe descheduled on 2 cores) run, or this loop
          // spins through its operations while every permit sits with a sleeping thread
          Thread.yield();
        }
      } else if (dice < 45) {
        attempts.incrementAndGet();
        Optional<Permit> permit = limiter.tryAcquire();
        if (permit.isPresent()) {
          maxHolders.accumulateAndGet(holders.addAndGet(units(permit.get())), Math::max);
          allPermits.add(permit.get());
          held.add(permit.get());
        } else {
          Thread.yield();
        }
      } else if (dice < 55 && !pending.isEmpty()) {
        pending.remove(random.nextInt(pending.size())).cancel(random.nextBoolean());
      } else if (dice < 85 && !held.isEmpty()) {
        Permit permit = held.remove(random.nextInt(held.size()));
        holders.addAndGet(-units(permit)); // before release: the next may be counted at once
        permit.release();
        if (random.nextInt(10) == 0) {
          permit.release(); // a buggy caller releases twice; must add nothing
        }
      } else if (changeLimits && dice >= 95 && dice < 97) {
        limiter.reconfigure(LimiterSpec.from(limiter.spec())
            .maxConcurrency(2 + random.nextInt(5))
            .build());
      } else if (dice >= 97) {
        // workers move time too: on a loaded 2-core machine the clock thread alone may be starved
        // so long that no waiter ever times out, and the timeout races go untested
        time.advanceNanos(random.nextLong(2_000_000));
      } else {
        Thread.yield();
      }
    }
    for (Permit p = granted.poll(); p != null; p = granted.poll()) {
      held.add(p);
    }
    held.forEach(p -> {
      holders.addAndGet(-units(p));
      p.release();
    });
  }

  private static int units(Permit permit) {
    return ((GrantedPermit) permit).units;
  }

  /** Mostly a few keys and normal class; some critical and sheddable, some costing more. */
  private static Caller randomCaller(SplittableRandom random) {
    Caller caller =
        Caller.of("k" + random.nextInt(KEYS)).withPriority(CLASSES[random.nextInt(CLASSES.length)]);
    return random.nextInt(10) == 0 ? caller.withCost(2) : caller;
  }

  /**
   * Among waiters of one key and class that were granted, the order of grants is the order of
   * joining the queue (for FIFO every caller is {@link Caller#DEFAULT}: one group).
   */
  private static void assertFifoWithinKeyAndClass(Queue<Attempt> attempts, long seed) {
    Map<String, List<GrantedPermit>> groups = new HashMap<>();
    for (Attempt attempt : attempts) {
      if (attempt.future.isDone()
          && !attempt.future.isCompletedExceptionally()
          && !attempt.future.isCancelled()) {
        GrantedPermit granted = (GrantedPermit) attempt.future.join();
        if (granted.grantSequence() >= 0) {
          groups
              .computeIfAbsent(
                  attempt.caller.key() + "/" + attempt.caller.priority(), k -> new ArrayList<>())
              .add(granted);
        }
      }
    }
    assertThat(groups).as("seed " + seed + ": queued waiters were granted").isNotEmpty();
    groups.forEach((group, granted) -> {
      granted.sort((a, b) -> Long.compare(a.grantSequence(), b.grantSequence()));
      long previous = -1;
      for (GrantedPermit permit : granted) {
        assertThat(permit.queueSequence())
            .as("seed " + seed + ": FIFO within " + group)
            .isGreaterThan(previous);
        previous = permit.queueSequence();
      }
    });
  }

  /**
   * Every key-cap answer is counted once (they are immediate); no displaced answer goes uncounted
   * and none displaced a critical waiter (nothing ranks above critical). A displaced waiter's
   * answer is completed on the executor, so a worker's cancel may overtake it: the future then
   * shows a cancellation, while the limiter counted the displacement (its fate CAS came first).
   */
  private static void assertAnswersMatchCounts(
      Queue<Attempt> attempts, QueueSnapshot queue, long seed) {
    long keyCap = 0;
    long displaced = 0;
    for (Attempt attempt : attempts) {
      Throwable failure = attempt.future.handle((p, t) -> t).join();
      if (failure instanceof ConcurrencyRejectedException rejected) {
        if (rejected.reason() == RejectionReason.KEY_CAP) {
          keyCap++;
        } else if (rejected.reason() == RejectionReason.DISPLACED) {
          displaced++;
          assertThat(attempt.caller.priority())
              .as("seed " + seed + ": displaced class")
              .isNotEqualTo(Priority.CRITICAL);
        }
      }
    }
    assertThat(keyCap).as("seed " + seed + ": key-cap answers").isEqualTo(queue.rejectedKeyCap());
    assertThat(displaced)
        .as("seed " + seed + ": displaced answers")
        .isLessThanOrEqualTo(queue.displaced());
  }

  private record Attempt(Caller caller, CompletableFuture<Permit> future) {}

  private record Result(int maxHolders, QueueSnapshot queue, ConcurrencySnapshot snapshot) {}
}
