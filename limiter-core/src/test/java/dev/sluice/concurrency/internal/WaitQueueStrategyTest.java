package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.WaitQueue;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class WaitQueueStrategyTest {

  private final Limiters limiters = new Limiters();

  @Test
  void fifoQueueRemovesFromTheMiddleAndKeepsOrder() {
    FifoWaitQueue queue = new FifoWaitQueue();
    Waiter a = waiter();
    Waiter b = waiter();
    Waiter c = waiter();
    queue.add(a);
    queue.add(b);
    queue.add(c);

    assertThat(queue.remove(b)).isTrue();
    assertThat(queue.remove(b)).as("already gone").isFalse();

    assertThat(queue.size()).isEqualTo(1 + 1);
    assertThat(queue.poll()).isSameAs(a);
    assertThat(queue.poll()).isSameAs(c);
    assertThat(queue.poll()).isNull();
    assertThat(queue.remove(a)).isFalse();
  }

  @Test
  void anotherDisciplinePlugsInWithoutChangingTheLimiter() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 5, Duration.ofSeconds(1))
            .queue(QueueSpec.of("last come, first served", LastComeFirstServed::new))
            .build())
        .build();
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> older = limiter.acquire();
    CompletableFuture<Permit> newer = limiter.acquire();

    held.release();
    limiters.executor.runAll();

    assertThat(newer).isCompleted();
    assertThat(older).isNotDone();
  }

  private Waiter waiter() {
    return new Waiter(null, Caller.DEFAULT, 0);
  }

  /** A stand-in for a future discipline (Netflix's LIFO backlog), to prove the seam works. */
  private static final class LastComeFirstServed implements WaitQueue {
    private final Deque<Entry> stack = new ArrayDeque<>();

    @Override
    public void add(Entry entry) {
      stack.push(entry);
    }

    @Override
    public Entry poll() {
      return stack.poll();
    }

    @Override
    public boolean remove(Entry entry) {
      return stack.remove(entry);
    }

    @Override
    public int size() {
      return stack.size();
    }
  }
}
