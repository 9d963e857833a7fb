package example.extension;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.Reconfiguration;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.AdaptiveLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * A user's own limit strategy and queue discipline, each one class outside Sluice's packages,
 * using only the public API; and both reconfigurable like the built-in ones.
 */
class UserStrategiesTest {

  /** Additive increase while nothing was slow, multiplicative decrease after a slow permit. */
  static final class AimdLimit extends AdaptiveLimit {
    private volatile boolean slow;

    AimdLimit(int max, int start) {
      super(1, max, Math.max(1, start), Duration.ofMillis(100));
    }

    @Override
    public void onSample(long serviceNanos, int inFlight) {
      if (serviceNanos > 50_000_000L) {
        slow = true;
      }
    }

    @Override
    protected double adjust(double current, Control control) {
      if (slow) {
        slow = false;
        return current * 0.5;
      }
      return current + 1;
    }
  }

  /** Newest first. */
  static final class LifoQueue implements WaitQueue {
    private final Deque<Entry> entries = new ArrayDeque<>();

    @Override
    public void add(Entry entry) {
      entries.push(entry);
    }

    @Override
    public Entry poll() {
      return entries.poll();
    }

    @Override
    public boolean remove(Entry entry) {
      return entries.remove(entry);
    }

    @Override
    public int size() {
      return entries.size();
    }
  }

  private final VirtualTime time = new VirtualTime();

  @Test
  void aUserLimitStrategyPlugsInThroughTheSpecAndLearns() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("aimd")
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .spec(LimiterSpec.custom()
            .maxConcurrency(10)
            .limit(LimitSpec.of("aimd", AimdLimit::new))
            .build())
        .build();
    for (int i = 0; i < 5; i++) {
      Permit p = limiter.acquire().join(); // fast permits: 10 ms each
      time.advance(Duration.ofMillis(10));
      p.release();
      time.advance(Duration.ofMillis(90));
    }
    int grown = limiter.snapshot().limit();
    Permit p = limiter.acquire().join();
    time.advance(Duration.ofMillis(80)); // a slow permit
    p.release();
    time.advance(Duration.ofMillis(100));

    assertThat(grown).isGreaterThan(1);
    assertThat(limiter.snapshot().limit()).isLessThan(grown);
    assertThat(limiter.snapshot().limitState().strategy()).isEqualTo("aimd");
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aUserQueueDisciplinePlugsInThroughTheSpecAndTakesTheWaitersOnReconfigure() {
    LimiterSpec fifo = LimiterSpec.custom().maxConcurrency(1).maxQueue(8).build();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("lifo")
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .spec(fifo)
        .build();
    Permit running = limiter.acquire().join();
    List<Integer> order = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int n = i;
      limiter.acquire().thenAccept(p -> {
        order.add(n);
        p.release();
      });
    }

    limiter.reconfigure(
        LimiterSpec.from(fifo).queue(QueueSpec.of("lifo", LifoQueue::new)).build());
    running.release();

    // moved in grant order (1, 2, 3) onto a stack: served 3, 2, 1
    assertThat(order).containsExactly(3, 2, 1);
  }

  @Test
  void aCustomLimitCarriedOverByFromKeepsItsRunningSource() {
    List<Integer> startedAt = new ArrayList<>();
    LimiterSpec spec = LimiterSpec.custom()
        .maxConcurrency(10)
        .limit(LimitSpec.of("aimd", (max, start) -> {
          startedAt.add(start);
          return new AimdLimit(max, start);
        }))
        .build();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("aimd")
        .clock(time)
        .scheduler(time)
        .spec(spec)
        .build();
    time.advance(Duration.ofMillis(300)); // idle ticks: the limit grows
    int learnt = limiter.limit();

    Reconfiguration r =
        limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(3).build());

    assertThat(r.applied()).containsExactly("maxQueue 32 -> 3");
    assertThat(startedAt).as("built once, when the limiter was").containsExactly(0);
    assertThat(limiter.limit()).isEqualTo(learnt);
  }

  @Test
  void anotherInstanceOfACustomLimitIsAChangeAndStartsFromTheLimitInForce() {
    List<Integer> startedAt = new ArrayList<>();
    BiFunction<Integer, Integer, AimdLimit> factory = (max, start) -> {
      startedAt.add(start);
      return new AimdLimit(max, start);
    };
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("aimd")
        .clock(time)
        .scheduler(time)
        .spec(LimiterSpec.custom()
            .maxConcurrency(10)
            .limit(LimitSpec.of("aimd", factory))
            .build())
        .build();
    time.advance(Duration.ofMillis(300));
    int learnt = limiter.limit();

    Reconfiguration r = limiter.reconfigure(
        LimiterSpec.from(limiter.spec()).limit(LimitSpec.of("aimd", factory)).build());

    assertThat(r.applied()).singleElement().asString().startsWith("limit aimd -> aimd");
    assertThat(startedAt).containsExactly(0, learnt);
    assertThat(limiter.limit()).isEqualTo(learnt);
  }

  @Test
  void aCustomQueueCarriedOverByFromKeepsItsQueue() {
    List<LifoQueue> built = new ArrayList<>();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("lifo")
        .clock(time)
        .scheduler(time)
        .spec(LimiterSpec.custom()
            .queue(QueueSpec.of("lifo", () -> {
              LifoQueue queue = new LifoQueue();
              built.add(queue);
              return queue;
            }))
            .build())
        .build();

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(2).build());
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(3).build());

    assertThat(built).hasSize(1);
  }
}
