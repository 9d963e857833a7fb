package dev.sluice.benchmarks;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSpec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The queue disciplines side by side, in one class and run so their ratios hold on a noisy
 * machine ({@code queue} = fifo, fair, prioritized-fair).
 *
 * <ul>
 *   <li>{@code uncontended}: {@code acquire(caller)} + {@code release()} with permits free, the
 *       common case; the discipline should cost nothing here (target: fair within 1.2x of fifo);
 *   <li>{@code handOff}: limit 1, a permit held; queue one waiter, release (a grant through the
 *       queue, completed inline), release the granted permit: one trip through the slow path;
 *   <li>{@code grantWith10000KeysWaiting}: limit 1, 10,000 waiters of 10,000 different keys
 *       queued; each operation releases the held permit (the queue grants the next waiter) and
 *       queues a new waiter of the granted key, so the queue stays at 10,000 keys and each
 *       operation is one grant plus one enqueue (the granted key's state is dropped and made
 *       again: the worst case for the fair queue's bookkeeping).
 * </ul>
 * Executor: inline ({@code Runnable::run}), so a grant completes the waiter's future on the
 * releasing thread and the figure has no thread hop in it. No queue timeout is scheduled.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class WaitQueueBenchmark {

  private static final int KEYS = 10_000;

  /** Long enough that the limiter schedules no timeout at all (it saturates to "never"). */
  private static final Duration NEVER = Duration.ofSeconds(Long.MAX_VALUE);

  @Param({"fifo", "fair", "prioritized-fair"})
  public String queue;

  private ConcurrencyLimiter free;
  private ConcurrencyLimiter single;
  private ConcurrencyLimiter crowded;
  private Caller caller;
  private Caller[] callers;
  private CompletableFuture<Permit>[] waiting;
  private Permit held;
  private Permit crowdedHeld;
  private int next;

  private QueueSpec discipline() {
    return switch (queue) {
      case "fifo" -> QueueSpec.fifo();
      case "fair" -> QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(4).build());
      case "prioritized-fair" -> QueueSpec.fair(FairQueueConfig.DEFAULT).withClasses();
      default -> throw new IllegalArgumentException("queue " + queue);
    };
  }

  private ConcurrencyLimiter limiter(int limit, int maxQueue) {
    return ConcurrencyLimiter.builder("bench-" + queue)
        .spec(LimiterSpec.custom()
            .maxConcurrency(limit)
            .maxQueue(maxQueue)
            .queueTimeout(NEVER)
            .queue(discipline())
            .build())
        .executor(Runnable::run)
        .build();
  }

  @Setup(Level.Trial)
  public void setUp() {
    caller = Caller.of("host-7").withPriority(Priority.NORMAL);
    free = limiter(64, 64);
    single = limiter(1, 4);
    held = single.acquire().join();
    crowded = limiter(1, KEYS + 1);
    crowdedHeld = crowded.acquire().join();
    callers = new Caller[KEYS];
    waiting = newArray(KEYS);
    for (int k = 0; k < KEYS; k++) {
      callers[k] = Caller.of("key-" + k);
      waiting[k] = crowded.acquire(callers[k]);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type is made raw
  private static CompletableFuture<Permit>[] newArray(int n) {
    return new CompletableFuture[n];
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    free.shutdown();
    single.shutdown();
    crowded.shutdown();
  }

  @Benchmark
  public void uncontended() {
    free.acquire(caller).join().release();
  }

  @Benchmark
  public void handOff() {
    var waiter = single.acquire(caller);
    held.release();
    held = waiter.join();
  }

  @Benchmark
  public void grantWith10000KeysWaiting() {
    crowdedHeld.release(); // fifo and fair both grant key-0, key-1, ... in turn
    crowdedHeld = waiting[next].join();
    waiting[next] = crowded.acquire(callers[next]);
    next = next + 1 == KEYS ? 0 : next + 1;
  }
}
