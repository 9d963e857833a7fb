package dev.sluice.concurrency.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fair queue on its own: one rule per test. */
class FairWaitQueueTest {

  private static Waiter waiter(String key) {
    return new Waiter(null, Caller.of(key), 0);
  }

  private static Waiter waiter(String key, int weight) {
    return new Waiter(null, Caller.of(key).withCost(weight), 0);
  }

  private static List<String> drain(WaitQueue queue) {
    List<String> keys = new ArrayList<>();
    for (WaitQueue.Entry e = queue.poll(); e != null; e = queue.poll()) {
      keys.add(e.caller().key());
    }
    return keys;
  }

  @Test
  void grantsRoundRobinAcrossKeysInOrderOfFirstArrival() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    for (int i = 0; i < 4; i++) {
      queue.add(waiter("greedy"));
    }
    queue.add(waiter("polite-1"));
    queue.add(waiter("polite-2"));

    assertThat(drain(queue))
        .containsExactly("greedy", "polite-1", "polite-2", "greedy", "greedy", "greedy");
  }

  @Test
  void keepsArrivalOrderWithinAKey() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    Waiter a1 = waiter("a");
    Waiter b1 = waiter("b");
    Waiter a2 = waiter("a");
    Waiter a3 = waiter("a");
    queue.add(a1);
    queue.add(b1);
    queue.add(a2);
    queue.add(a3);

    assertThat(queue.poll()).isSameAs(a1);
    assertThat(queue.poll()).isSameAs(b1);
    assertThat(queue.poll()).isSameAs(a2);
    assertThat(queue.poll()).isSameAs(a3);
    assertThat(queue.poll()).isNull();
  }

  @Test
  void keyWeightsGrantInProportion() {
    FairWaitQueue queue =
        new FairWaitQueue(FairQueueConfig.builder().keyWeight("heavy", 3).build());
    for (int i = 0; i < 6; i++) {
      queue.add(waiter("heavy"));
      queue.add(waiter("light"));
    }

    assertThat(drain(queue).subList(0, 8))
        .containsExactly("heavy", "heavy", "heavy", "light", "heavy", "heavy", "heavy", "light");
  }

  @Test
  void aCallerWeighingMoreWaitsForItsKeyToSaveUp() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    queue.add(waiter("big", 3));
    queue.add(waiter("big", 3));
    for (int i = 0; i < 6; i++) {
      queue.add(waiter("small"));
    }

    // big earns 1 per round and spends 3 per request: one grant per three rounds
    assertThat(drain(queue))
        .containsExactly("small", "small", "big", "small", "small", "small", "big", "small");
  }

  @Test
  void aKeyWithNoWaiterLeavesNoState() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    Waiter a = waiter("a");
    Waiter b = waiter("b");
    queue.add(a);
    queue.add(b);

    assertThat(queue.remove(a)).isTrue();
    queue.poll();

    assertThat(queue.flowOf("a")).isNull();
    assertThat(queue.flowOf("b")).isNull();
    assertThat(queue.keys()).isZero();
    assertThat(queue.size()).isZero();
    assertThat(queue.poll()).isNull();
  }

  @Test
  void removesFromTheMiddleOfAKeyAndTheRing() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    Waiter a1 = waiter("a");
    Waiter a2 = waiter("a");
    Waiter b = waiter("b");
    Waiter c = waiter("c");
    queue.add(a1);
    queue.add(a2);
    queue.add(b);
    queue.add(c);

    assertThat(queue.remove(a2)).isTrue();
    assertThat(queue.remove(b)).isTrue();
    assertThat(queue.remove(b)).as("already gone").isFalse();

    assertThat(queue.size()).isEqualTo(2);
    assertThat(queue.keys()).isEqualTo(2);
    assertThat(queue.poll()).isSameAs(a1);
    assertThat(queue.poll()).isSameAs(c);
  }

  @Test
  void refusesAKeyAtItsCapButNotTheOthers() {
    FairWaitQueue queue =
        new FairWaitQueue(FairQueueConfig.builder().maxQueuePerKey(2).build());
    queue.add(waiter("greedy"));
    queue.add(waiter("greedy"));

    assertThat(queue.refusal(waiter("greedy"))).isEqualTo(RejectionReason.KEY_CAP);
    assertThat(queue.refusal(waiter("polite"))).isNull();
    queue.poll();
    assertThat(queue.refusal(waiter("greedy"))).as("below the cap again").isNull();
  }

  @Test
  void newestIsTheLastArrivalAcrossKeys() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    Waiter a = waiter("a");
    Waiter b = waiter("b");
    Waiter a2 = waiter("a");
    queue.add(a);
    queue.add(b);
    queue.add(a2);

    assertThat(queue.newest()).isSameAs(a2);
    queue.remove(a2);
    assertThat(queue.newest()).isSameAs(b);
    queue.remove(b);
    queue.remove(a);
    assertThat(queue.newest()).isNull();
  }

  @Test
  void predictsAWaitByItsKeysBacklogNotTheWholeQueue() {
    FairWaitQueue queue = new FairWaitQueue(FairQueueConfig.DEFAULT);
    for (int i = 0; i < 10; i++) {
      queue.add(waiter("greedy"));
    }
    queue.add(waiter("other"));

    assertThat(queue.ahead(waiter("new"))).as("one round: one of each key").isEqualTo(2);
    assertThat(queue.ahead(waiter("other"))).as("two rounds").isEqualTo(3);
    assertThat(queue.ahead(waiter("greedy"))).as("never more than the queue").isEqualTo(11);
  }

  @Test
  void configRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> FairQueueConfig.builder().maxQueuePerKey(-1))
        .hasMessage("maxQueuePerKey must be >= 0 but was -1");
    assertThatThrownBy(() -> FairQueueConfig.builder().keyWeight("a", 0))
        .hasMessage("weight of key 'a' must be >= 1 but was 0");
    assertThatThrownBy(() -> FairQueueConfig.builder().keyWeight(" ", 2))
        .hasMessageContaining("must not be blank");
  }
}
