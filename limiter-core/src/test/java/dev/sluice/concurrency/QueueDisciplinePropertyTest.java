package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Properties of the fair and prioritized queues, checked through the limiter on virtual time over
 * many random cases (each seed is in the failure message). The model-based cases replay random
 * arrivals, cancels and releases against a plain list and compare every answer.
 */
@Tag("property")
class QueueDisciplinePropertyTest {

  private static final int CASES = 100;

  @Test
  void backloggedKeysAreGrantedWithinOneRoundOfEachOther() {
    for (int c = 0; c < CASES; c++) {
      long seed = 0x5EED_0000L + c;
      SplittableRandom random = new SplittableRandom(seed);
      boolean weighted = random.nextBoolean();
      int keys = 2 + random.nextInt(11);
      Map<String, Integer> weights = new LinkedHashMap<>();
      FairQueueConfig.Builder config = FairQueueConfig.builder();
      for (int k = 0; k < keys; k++) {
        int weight = weighted ? 1 + random.nextInt(4) : 1;
        weights.put("k" + k, weight);
        config.keyWeight("k" + k, weight);
      }
      List<String> grants = grantsWhileBacklogged(random, config.build(), weights, 20 * keys);

      assertEveryWindowWithinOneRound(grants, weights, "seed " + seed);
    }
  }

  /**
   * Holds every permit, queues at least two waiters per key (so no key ever runs dry), then
   * releases one permit at a time and replaces each granted waiter with a new one of its key.
   */
  private static List<String> grantsWhileBacklogged(
      SplittableRandom random, FairQueueConfig config, Map<String, Integer> weights, int count) {
    Limiters limiters = new Limiters();
    int limit = 1 + random.nextInt(4);
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(limit, 10_000, Duration.ofDays(1))
            .queue(QueueSpec.fair(config))
            .build())
        .build();
    List<Permit> held = new ArrayList<>();
    for (int i = 0; i < limit; i++) {
      held.add(limiter.acquire().join());
    }
    List<String> grants = new ArrayList<>();
    for (String key : weights.keySet()) {
      for (int n = 2 + random.nextInt(3); n > 0; n--) {
        enqueue(limiter, key, held, grants);
      }
    }
    while (grants.size() < count) {
      held.remove(random.nextInt(held.size())).release();
      limiters.executor.runAll();
      enqueue(limiter, grants.get(grants.size() - 1), held, grants);
      if (random.nextInt(5) == 0) { // an extra waiter now and then: backlogs differ
        enqueue(limiter, "k" + random.nextInt(weights.size()), held, grants);
      }
    }
    return grants;
  }

  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void enqueue(
      ConcurrencyLimiter limiter, String key, List<Permit> held, List<String> grants) {
    limiter.acquire(Caller.of(key)).thenAccept(permit -> {
      grants.add(key);
      held.add(permit);
    });
  }

  /**
   * In every window of consecutive grants, grants per key divided by the key's weight differ by
   * less than 2 (a window may cut one round short at each end); with equal weights, by at most 1.
   */
  private static void assertEveryWindowWithinOneRound(
      List<String> grants, Map<String, Integer> weights, String seed) {
    boolean equal = weights.values().stream().distinct().count() == 1;
    List<String> keys = new ArrayList<>(weights.keySet());
    int[] index = grants.stream().mapToInt(keys::indexOf).toArray();
    double[] perGrant = keys.stream().mapToDouble(k -> 1.0 / weights.get(k)).toArray();
    double bound = equal ? 1 : 2 - 1e-9;
    for (int from = 0; from < index.length; from++) {
      double[] rounds = new double[keys.size()];
      for (int to = from; to < index.length; to++) {
        rounds[index[to]] += perGrant[index[to]];
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double r : rounds) {
          min = Math.min(min, r);
          max = Math.max(max, r);
        }
        if (max - min > bound + 1e-9) { // assert only on failure: this loop runs millions of times
          assertThat(max - min)
              .as(seed + ", weights " + weights + ", window " + from + ".." + to + " of " + grants)
              .isLessThanOrEqualTo(bound);
        }
      }
    }
  }

  @Test
  void aKeyIsRefusedExactlyWhenAtItsCapAndIdleKeysLeaveNoState() {
    for (int c = 0; c < CASES; c++) {
      long seed = 0xCA9_0000L + c;
      SplittableRandom random = new SplittableRandom(seed);
      int cap = 1 + random.nextInt(4);
      int maxQueue = 1 + random.nextInt(12);
      int keys = 1 + random.nextInt(6);
      Limiters limiters = new Limiters();
      ConcurrencyLimiter limiter = limiters
          .builder(Limiters.spec(1, maxQueue, Duration.ofDays(1))
              .queue(
                  QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(cap).build()))
              .build())
          .build();
      Permit held = limiter.acquire().join();
      List<Queued> queued = new ArrayList<>(); // the model: who waits, in arrival order
      for (int step = 0; step < 300; step++) {
        int dice = random.nextInt(10);
        if (dice < 6) {
          String key = "k" + random.nextInt(keys);
          CompletableFuture<Permit> future = limiter.acquire(Caller.of(key));
          long ofKey = queued.stream().filter(q -> q.key.equals(key)).count();
          String as = "seed " + seed + ", step " + step + ", " + key;
          if (ofKey >= cap) {
            assertThat(reason(future)).as(as).isEqualTo(RejectionReason.KEY_CAP);
          } else if (queued.size() >= maxQueue) {
            assertThat(reason(future)).as(as).isEqualTo(RejectionReason.QUEUE_FULL);
          } else {
            assertThat(future).as(as).isNotDone();
            queued.add(new Queued(key, Priority.NORMAL, future));
          }
        } else if (dice < 8 && !queued.isEmpty()) {
          queued.remove(random.nextInt(queued.size())).future.cancel(false);
        } else {
          held.release();
          limiters.executor.runAll();
          Queued granted =
              queued.stream().filter(q -> q.future.isDone()).findFirst().orElse(null);
          if (granted == null) {
            held = limiter.acquire().join(); // nobody waited: take the permit back
          } else {
            queued.remove(granted);
            held = granted.future.join();
          }
        }
        long keysWaiting = queued.stream().map(q -> q.key).distinct().count();
        assertThat(limiter.queueSnapshot().keys())
            .as("seed " + seed + ": keys with state")
            .isEqualTo((int) keysWaiting);
        assertThat(limiter.snapshot().queued()).isEqualTo(queued.size());
      }
    }
  }

  @Test
  // the model ranks priorities by declaration order, as the queue under test does
  @SuppressWarnings("EnumOrdinal")
  void grantsGoToTheOldestOfTheHighestClassAndDisplacementTakesTheNewestOfTheLowest() {
    for (int c = 0; c < CASES; c++) {
      long seed = 0xD15_0000L + c;
      SplittableRandom random = new SplittableRandom(seed);
      int maxQueue = 1 + random.nextInt(8);
      Limiters limiters = new Limiters();
      ConcurrencyLimiter limiter = limiters
          .builder(Limiters.spec(1, maxQueue, Duration.ofDays(1))
              .queue(QueueSpec.prioritized())
              .build())
          .build();
      Permit held = limiter.acquire().join();
      List<Queued> queued = new ArrayList<>();
      for (int step = 0; step < 300; step++) {
        String as = "seed " + seed + ", step " + step;
        int dice = random.nextInt(10);
        if (dice < 6) {
          Priority priority = Priority.values()[random.nextInt(3)];
          CompletableFuture<Permit> future = limiter.acquire(Caller.DEFAULT.withPriority(priority));
          if (queued.size() < maxQueue) {
            assertThat(future).as(as).isNotDone();
            queued.add(new Queued("", priority, future));
          } else {
            Queued victim = newestOfLowestBelow(queued, priority);
            if (victim == null) {
              assertThat(reason(future)).as(as).isEqualTo(RejectionReason.QUEUE_FULL);
            } else {
              limiters.executor.runAll();
              assertThat(reason(victim.future))
                  .as(as + ": victim")
                  .isEqualTo(RejectionReason.DISPLACED);
              assertThat(queued.stream().filter(q -> q.future.isDone()).count())
                  .as(as)
                  .isEqualTo(1);
              queued.remove(victim);
              assertThat(future).as(as).isNotDone();
              queued.add(new Queued("", priority, future));
            }
          }
        } else if (dice < 7 && !queued.isEmpty()) {
          queued.remove(random.nextInt(queued.size())).future.cancel(false);
        } else {
          held.release();
          limiters.executor.runAll();
          Queued expected = oldestOfHighest(queued);
          if (expected == null) {
            held = limiter.acquire().join();
          } else {
            assertThat(expected.future).as(as + ": granted").isCompleted();
            queued.remove(expected);
            assertThat(queued).as(as).noneMatch(q -> q.future.isDone());
            held = expected.future.join();
          }
        }
        QueueSnapshot snapshot = limiter.queueSnapshot();
        for (Priority p : Priority.values()) {
          assertThat(snapshot.queued(p)).as(as + ": " + p).isEqualTo((int)
              queued.stream().filter(q -> q.priority == p).count());
        }
      }
    }
  }

  // the model ranks priorities by declaration order, as the queue under test does
  @SuppressWarnings("EnumOrdinal")
  private static Queued newestOfLowestBelow(List<Queued> queued, Priority newcomer) {
    for (int rank = Priority.values().length - 1; rank > newcomer.ordinal(); rank--) {
      for (int i = queued.size() - 1; i >= 0; i--) {
        if (queued.get(i).priority.ordinal() == rank) {
          return queued.get(i);
        }
      }
    }
    return null;
  }

  // the model ranks priorities by declaration order, as the queue under test does
  @SuppressWarnings("EnumOrdinal")
  private static Queued oldestOfHighest(List<Queued> queued) {
    Queued best = null;
    for (Queued q : queued) {
      if (best == null || q.priority.ordinal() < best.priority.ordinal()) {
        best = q;
      }
    }
    return best;
  }

  private static RejectionReason reason(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return ((ConcurrencyRejectedException) future.handle((p, t) -> t).join()).reason();
  }

  private record Queued(String key, Priority priority, CompletableFuture<Permit> future) {}
}
