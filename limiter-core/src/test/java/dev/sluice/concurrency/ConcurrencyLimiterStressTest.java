package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads acquire, cancel, release (twice, sometimes), time out and change the limit at
 * random, on real threads and a real executor; virtual time moves on its own thread so timeouts
 * race grants and cancels. Then the invariants: never more holders than the limit, every attempt
 * decided exactly once, waiters granted in queue order, and after everything is given back the
 * limiter has exactly its capacity again (no leaked and no extra permit).
 */
class ConcurrencyLimiterStressTest {

  private static final int WORKERS = 6;
  private static final int OPS_PER_WORKER = 20_000;

  @Test
  void fixedLimitIsNeverExceededAndNoPermitLeaks() throws Exception {
    Result result = run(false);

    assertThat(result.maxHolders).as("holders never above the limit").isLessThanOrEqualTo(4);
    assertThat(result.maxHolders).as("the load did saturate the limiter").isEqualTo(4);
  }

  @Test
  void changingLimitsLoseAndInventNoPermit() throws Exception {
    Result result = run(true);

    assertThat(result.maxHolders).as("never above the largest limit set").isLessThanOrEqualTo(6);
  }

  /** Early rejections (at arrival and at re-checks) race grants, cancels and timeouts too. */
  @Test
  void rejectingEarlyLosesAndInventsNoPermit() throws Exception {
    Result result = run(true, true);

    assertThat(result.maxHolders).as("never above the largest limit set").isLessThanOrEqualTo(6);
  }

  private Result run(boolean changeLimits) throws Exception {
    return run(changeLimits, false);
  }

  private Result run(boolean changeLimits, boolean rejectEarly) throws Exception {
    long seed = ThreadLocalRandom.current().nextLong();
    VirtualTime time = new VirtualTime();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    ConcurrencyLimiter limiter =
        ConcurrencyLimiter.builder("stress")
            .maxConcurrency(4)
            .maxQueue(8)
            .queueTimeout(Duration.ofMillis(5))
            .clock(time)
            .scheduler(time)
            .executor(executor)
            .rejectEarly(rejectEarly)
            .build();

    AtomicInteger holders = new AtomicInteger();
    AtomicInteger maxHolders = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    Queue<CompletableFuture<Permit>> allFutures = new ConcurrentLinkedQueue<>();
    Queue<Permit> allPermits = new ConcurrentLinkedQueue<>();
    AtomicBoolean workersDone = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);

    Thread clock =
        new Thread(
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
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  work(random, limiter, time, changeLimits, holders, maxHolders, attempts,
                      allFutures, allPermits);
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
    allFutures.stream().filter(f -> !f.isCompletedExceptionally()).forEach(f -> f.join().release());
    allPermits.forEach(Permit::release);

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(snapshot.inFlight()).as("seed " + seed + ": in flight after all released").isZero();
    assertThat(snapshot.queued()).isZero();
    long decided =
        snapshot.admitted()
            + snapshot.rejectedQueueFull()
            + snapshot.rejectedQueueTimeout()
            + snapshot.cancelled()
            + snapshot.rejectedShutdown();
    assertThat(decided).as("every attempt decided exactly once").isEqualTo(attempts.get());
    assertThat(snapshot.rejectedQueueTimeout()).as("timeouts were exercised").isPositive();
    assertThat(snapshot.cancelled()).as("cancellations were exercised").isPositive();
    assertThat(snapshot.queuedTotal()).isPositive();

    assertFifo(allPermits, seed);
    Set<Permit> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    distinct.addAll(allPermits);
    assertThat(distinct).as("no permit object handed out twice").hasSameSizeAs(allPermits);

    // full capacity, exactly: no permit leaked, none invented
    limiter.setMaxConcurrency(5);
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.tryAcquire()).as("seed " + seed + ": permit " + i).isPresent();
    }
    assertThat(limiter.tryAcquire()).as("seed " + seed + ": a sixth permit").isEmpty();
    return new Result(maxHolders.get());
  }

  @SuppressWarnings("checkstyle:ParameterNumber")
  private static void work(
      SplittableRandom random,
      ConcurrencyLimiter limiter,
      VirtualTime time,
      boolean changeLimits,
      AtomicInteger holders,
      AtomicInteger maxHolders,
      AtomicLong attempts,
      Queue<CompletableFuture<Permit>> allFutures,
      Queue<Permit> allPermits) {
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
        CompletableFuture<Permit> future = limiter.acquire();
        allFutures.add(future);
        future.thenAccept(
            permit -> {
              // counted as soon as the continuation runs, i.e. while the permit is surely held
              maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
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
          maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
          allPermits.add(permit.get());
          held.add(permit.get());
        } else {
          Thread.yield();
        }
      } else if (dice < 55 && !pending.isEmpty()) {
        pending.remove(random.nextInt(pending.size())).cancel(random.nextBoolean());
      } else if (dice < 85 && !held.isEmpty()) {
        Permit permit = held.remove(random.nextInt(held.size()));
        holders.decrementAndGet(); // before release: the next holder may be counted at once
        permit.release();
        if (random.nextInt(10) == 0) {
          permit.release(); // a buggy caller releases twice; must add nothing
        }
      } else if (changeLimits && dice >= 95 && dice < 97) {
        limiter.setMaxConcurrency(2 + random.nextInt(5));
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
    held.forEach(
        p -> {
          holders.decrementAndGet();
          p.release();
        });
  }

  /** Among waiters that were granted, the order of grants is the order of joining the queue. */
  private static void assertFifo(Queue<Permit> permits, long seed) {
    List<GrantedPermit> queuedThenGranted = new ArrayList<>();
    for (Permit permit : permits) {
      GrantedPermit granted = (GrantedPermit) permit;
      if (granted.grantSequence() >= 0) {
        queuedThenGranted.add(granted);
      }
    }
    queuedThenGranted.sort((a, b) -> Long.compare(a.grantSequence(), b.grantSequence()));
    assertThat(queuedThenGranted).as("seed " + seed + ": queued waiters were granted").isNotEmpty();
    long previous = -1;
    for (GrantedPermit permit : queuedThenGranted) {
      assertThat(permit.queueSequence()).as("seed " + seed + ": FIFO").isGreaterThan(previous);
      previous = permit.queueSequence();
    }
  }

  private record Result(int maxHolders) {}
}
