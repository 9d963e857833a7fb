package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.HangBound;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The key bound of the per-key store, on GCRA at 10 per second (a permit taken at t is back, and
 * the key full, at t + 100 ms) kept 3 s when idle: a new key past the bound waits for one eviction,
 * which frees a sixteenth of the slots, the states closest to full first, and is then stored; a key
 * two callers create at once takes one slot. A new key that needs an eviction is created on a
 * thread of its own and waited for at most {@link HangBound}, so a store that never frees a slot
 * fails the test instead of keeping its caller for ever.
 */
class KeyedStatesTest {

  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final long MILLI = Duration.ofMillis(1).toNanos();
  private static final long IDLE = 3 * SECOND;
  private static final int MAX_KEYS = 32;

  /** A random start, as VirtualTime's: raw nano values compared instead of differences fail. */
  private final long t0 = new VirtualTime().nanoTime();

  private final Gcra gcra = new Gcra(RateLimit.of(10, Duration.ofSeconds(1)));

  private final KeyedStates<LongState> states = new KeyedStates<>(gcra, MAX_KEYS, IDLE, t0);

  private final List<String> keys = new ArrayList<>();

  /**
   * Fills every slot with a state that took a permit: key-0 at t0, key-1 a millisecond later, and
   * so on; key-0 is the closest to full.
   */
  private List<LongState> fill() {
    List<LongState> filled = new ArrayList<>();
    for (int i = 0; i < MAX_KEYS; i++) {
      String key = "key-" + i;
      long now = t0 + i * MILLI;
      LongState counts = states.getOrCreate(key, now);
      assertThat(gcra.tryAcquire(counts, now, 1).allowed()).isTrue();
      keys.add(key);
      filled.add(counts);
    }
    return filled;
  }

  /**
   * {@code getOrCreate} on another thread, waited for at most {@link HangBound}. Not back by then: every
   * state is forgotten, which frees the slots that thread waits for, and the test fails.
   */
  private LongState createWithin(String key, long now)
      throws InterruptedException, ExecutionException {
    FutureTask<LongState> create = new FutureTask<>(() -> states.getOrCreate(key, now));
    Thread thread = new Thread(create, "a new key");
    thread.setDaemon(true);
    thread.start();
    try {
      return create.get(HangBound.get().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      for (String known : keys) {
        LongState counts = states.get(known);
        if (counts != null) {
          states.forget(known, counts);
        }
      }
      throw new AssertionError("no slot was freed for " + key + " within " + HangBound.get(), e);
    }
  }

  private long held() {
    return keys.stream().filter(key -> states.get(key) != null).count();
  }

  @Test
  void aNewKeyPastTheBoundIsStoredAfterAnEvictionOfASixteenthOfTheSlots() throws Exception {
    fill();

    LongState newcomer = createWithin("newcomer", t0 + 50 * MILLI);

    assertThat(states.get("newcomer")).isSameAs(newcomer);
    assertThat(held()).as("%d of %d evicted", MAX_KEYS / 16, MAX_KEYS).isEqualTo(MAX_KEYS - 2);
    // the eviction gave its lock back: a sweep falling due here only tries it, and runs
    states.maintain(t0 + 50 * MILLI + IDLE);
    assertThat(held()).as("all full for the grace by then, and swept").isZero();
  }

  @Test
  void anEvictionDropsTheStatesClosestToFullAndRetiresThem() throws Exception {
    List<LongState> filled = fill();

    createWithin("newcomer", t0 + 50 * MILLI);

    // the sample's estimate lands a little above the exact quantile: the two dropped are among the
    // three oldest
    List<String> dropped = keys.stream().filter(key -> states.get(key) == null).toList();
    assertThat(dropped).hasSize(2).isSubsetOf("key-0", "key-1", "key-2");
    for (int i = 0; i < MAX_KEYS; i++) {
      assertThat(filled.get(i).live())
          .as("key-%d: retired when dropped, so a decision on it is made again", i)
          .isEqualTo(!dropped.contains("key-" + i));
    }
  }

  @Test
  void slotsFreedBySweepsAreTakenAgainWithoutAnEviction() throws Exception {
    fill();
    // every state full for the grace (2 s) by then: a sweep drops them all and gives back their
    // slots
    assertThat(states.size(t0 + 3 * SECOND)).isZero();

    for (int i = 0; i < MAX_KEYS; i++) {
      String key = "again-" + i;
      keys.add(key);
      LongState counts = createWithin(key, t0 + 3 * SECOND); // a slot a sweep freed
      assertThat(gcra.tryAcquire(counts, t0 + 3 * SECOND, 1).allowed()).isTrue();
    }
    createWithin("newcomer", t0 + 3 * SECOND + 1);

    assertThat(held()).as("the again- keys an eviction left").isEqualTo(MAX_KEYS - 2);
  }

  /** GCRA that runs {@link #meanwhile} once, just before it makes a new state: another caller. */
  private final class Interleaving extends ForwardingAlgorithm<LongState> {
    private Runnable meanwhile;

    Interleaving() {
      super(gcra);
    }

    @Override
    public LongState newState(long now) {
      Runnable other = meanwhile;
      meanwhile = null;
      if (other != null) {
        other.run();
      }
      return super.newState(now);
    }
  }

  @Test
  void aKeyCreatedByTwoCallersAtOnceKeepsTheStatePublishedFirstAndOneSlot() {
    Interleaving racing = new Interleaving();
    KeyedStates<LongState> two = new KeyedStates<>(racing, 2, IDLE, t0);
    AtomicReference<LongState> first = new AtomicReference<>();
    racing.meanwhile = () -> first.set(two.getOrCreate("a", t0));

    LongState second = two.getOrCreate("a", t0);

    assertThat(second).isNotNull().isSameAs(first.get());
    two.getOrCreate("b", t0 + MILLI); // fits beside "a" when "a" holds one slot, not two
    assertThat(two.get("a")).as("not evicted").isSameAs(first.get());
    assertThat(two.get("b")).isNotNull();
  }
}
