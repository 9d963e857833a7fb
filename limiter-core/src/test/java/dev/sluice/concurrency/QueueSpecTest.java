package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The built-in queue disciplines as configuration: what each says of itself and builds. */
class QueueSpecTest {

  private static final FairQueueConfig CAPPED_AND_WEIGHTED =
      FairQueueConfig.builder().maxQueuePerKey(4).keyWeight("gold", 3).build();

  @Test
  void eachStandardDisciplineDescribesItsSettings() {
    assertThat(QueueSpec.fifo()).hasToString("fifo");
    assertThat(QueueSpec.prioritized()).hasToString("fifo, priority classes");
    assertThat(QueueSpec.fair(FairQueueConfig.DEFAULT)).hasToString("fair");
    assertThat(QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(1).build()))
        .hasToString("fair, max 1 per key");
    assertThat(QueueSpec.fair(FairQueueConfig.builder().keyWeight("gold", 3).build()))
        .hasToString("fair, weights {gold=3}");
    assertThat(QueueSpec.fair(CAPPED_AND_WEIGHTED).withClasses())
        .hasToString("fair, max 4 per key, weights {gold=3}, priority classes");
  }

  @Test
  void aFifoQueueDropsTheFairSettingsItWouldIgnore() {
    QueueSpec.Standard fifoWithSettings = new QueueSpec.Standard(false, CAPPED_AND_WEIGHTED, true);

    assertThat(fifoWithSettings).hasToString("fifo, priority classes");
    assertThat(fifoWithSettings).isEqualTo(QueueSpec.prioritized());
  }

  @Test
  void onlyAFairQueueNeedsCallersKeys() {
    assertThat(QueueSpec.fifo().keyed()).isFalse();
    assertThat(QueueSpec.prioritized().keyed()).isFalse();
    assertThat(QueueSpec.fair(FairQueueConfig.DEFAULT).keyed()).isTrue();
    assertThat(QueueSpec.fair(FairQueueConfig.DEFAULT).withClasses().keyed()).isTrue();
  }

  @Test
  void priorityClassesServeEachClassFifoOrFairAsConfigured() {
    // two callers of key a queue before one of key b, all of one class
    assertThat(grantOrder(QueueSpec.prioritized())).containsExactly("a", "a", "b");
    assertThat(grantOrder(QueueSpec.fair(FairQueueConfig.DEFAULT).withClasses()))
        .containsExactly("a", "b", "a");
    assertThat(grantOrder(QueueSpec.fifo())).containsExactly("a", "a", "b");
    assertThat(grantOrder(QueueSpec.fair(FairQueueConfig.DEFAULT))).containsExactly("a", "b", "a");
  }

  /** The keys in the order their callers were granted a single permit, each holding it briefly. */
  // the callbacks record the grants the test asserts; nothing fails in them
  @SuppressWarnings("FutureReturnValueIgnored")
  private static List<String> grantOrder(QueueSpec queue) {
    Limiters limiters = new Limiters();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 10, Duration.ofSeconds(10)).queue(queue).build())
        .build();
    Permit running = admitted(limiter.acquire());
    List<String> granted = new ArrayList<>();
    for (String key : List.of("a", "a", "b")) {
      limiter.acquire(Caller.of(key)).thenAccept(permit -> {
        granted.add(key);
        permit.release();
      });
    }

    running.release();
    limiters.executor.runAll();

    return granted;
  }
}
