package dev.sluice.concurrency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import org.junit.jupiter.api.Test;

/** Priority classes over FIFO or fair queues: one rule per test. */
class PriorityWaitQueueTest {

  private static Waiter waiter(String key, Priority priority) {
    return new Waiter(null, Caller.of(key).withPriority(priority), 0);
  }

  @Test
  void grantsTheHighestClassFirstAndFifoWithinIt() {
    WaitQueue queue = WaitQueue.prioritized();
    Waiter shed = waiter("a", Priority.SHEDDABLE);
    Waiter normal1 = waiter("a", Priority.NORMAL);
    Waiter critical = waiter("a", Priority.CRITICAL);
    Waiter normal2 = waiter("a", Priority.NORMAL);
    queue.add(shed);
    queue.add(normal1);
    queue.add(critical);
    queue.add(normal2);

    assertThat(queue.poll()).isSameAs(critical);
    assertThat(queue.poll()).isSameAs(normal1);
    assertThat(queue.poll()).isSameAs(normal2);
    assertThat(queue.poll()).isSameAs(shed);
    assertThat(queue.poll()).isNull();
  }

  @Test
  void displacesTheNewestOfTheLowestClassBelowTheNewcomer() {
    WaitQueue queue = WaitQueue.prioritized();
    Waiter shedOld = waiter("a", Priority.SHEDDABLE);
    Waiter shedNew = waiter("b", Priority.SHEDDABLE);
    Waiter normal = waiter("c", Priority.NORMAL);
    queue.add(shedOld);
    queue.add(shedNew);
    queue.add(normal);

    assertThat(queue.victimFor(waiter("x", Priority.CRITICAL))).isSameAs(shedNew);
    assertThat(queue.victimFor(waiter("x", Priority.NORMAL))).isSameAs(shedNew);
    assertThat(queue.victimFor(waiter("x", Priority.SHEDDABLE)))
        .as("nobody below sheddable")
        .isNull();
    queue.remove(shedNew);
    queue.remove(shedOld);
    assertThat(queue.victimFor(waiter("x", Priority.CRITICAL))).isSameAs(normal);
    assertThat(queue.victimFor(waiter("x", Priority.NORMAL)))
        .as("not its own class")
        .isNull();
  }

  @Test
  void displacesTheNewestAcrossKeysWhenFairInside() {
    WaitQueue queue = WaitQueue.prioritized(FairQueueConfig.DEFAULT);
    Waiter a = waiter("a", Priority.SHEDDABLE);
    Waiter b = waiter("b", Priority.SHEDDABLE);
    Waiter a2 = waiter("a", Priority.SHEDDABLE);
    queue.add(a);
    queue.add(b);
    queue.add(a2);

    assertThat(queue.victimFor(waiter("z", Priority.CRITICAL))).isSameAs(a2);
  }

  @Test
  void isFairInsideAClass() {
    WaitQueue queue = WaitQueue.prioritized(FairQueueConfig.DEFAULT);
    queue.add(waiter("a", Priority.NORMAL));
    queue.add(waiter("a", Priority.NORMAL));
    queue.add(waiter("b", Priority.NORMAL));
    queue.add(waiter("c", Priority.CRITICAL));

    assertThat(queue.poll().caller().key()).isEqualTo("c");
    assertThat(queue.poll().caller().key()).isEqualTo("a");
    assertThat(queue.poll().caller().key()).isEqualTo("b");
    assertThat(queue.poll().caller().key()).isEqualTo("a");
  }

  @Test
  void predictsACriticalWaitWithoutTheLowerClasses() {
    WaitQueue queue = WaitQueue.prioritized();
    for (int i = 0; i < 20; i++) {
      queue.add(waiter("s", Priority.SHEDDABLE));
    }
    queue.add(waiter("n", Priority.NORMAL));
    queue.add(waiter("c", Priority.CRITICAL));

    assertThat(queue.ahead(waiter("x", Priority.CRITICAL))).isEqualTo(1);
    assertThat(queue.ahead(waiter("x", Priority.NORMAL))).isEqualTo(2);
    assertThat(queue.ahead(waiter("x", Priority.SHEDDABLE))).isEqualTo(22);
  }

  @Test
  void countsPerClassAndKeysAndCapsPerKeyWithinAClass() {
    WaitQueue queue =
        WaitQueue.prioritized(FairQueueConfig.builder().maxQueuePerKey(1).build());
    queue.add(waiter("a", Priority.NORMAL));
    queue.add(waiter("a", Priority.CRITICAL));
    queue.add(waiter("b", Priority.SHEDDABLE));

    assertThat(queue.size(Priority.CRITICAL)).isEqualTo(1);
    assertThat(queue.size(Priority.NORMAL)).isEqualTo(1);
    assertThat(queue.size(Priority.SHEDDABLE)).isEqualTo(1);
    assertThat(queue.keys()).isEqualTo(3);
    assertThat(queue.refusal(waiter("a", Priority.NORMAL))).isEqualTo(RejectionReason.KEY_CAP);
    assertThat(queue.refusal(waiter("a", Priority.SHEDDABLE))).isNull();
  }
}
