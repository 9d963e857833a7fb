package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bound on keys at its edge: the key that finds every slot taken, how far one eviction frees
 * the map (to fifteen sixteenths), and which states go first (the closest to full).
 */
class KeyBoundTest {

  private final VirtualTime time = new VirtualTime();

  private RateLimiter limiter(long maxKeys) {
    return RateLimiter.builder(Algorithm.TOKEN_BUCKET, RateLimit.of(10, Duration.ofMinutes(1)))
        .clock(time)
        .maxKeys(maxKeys)
        .build();
  }

  @Test
  void theBoundItselfIsReachedWithoutEviction() {
    RateLimiter limiter = limiter(32);

    for (int i = 0; i < 32; i++) {
      limiter.tryAcquire("key-" + i);
    }

    assertThat(limiter.trackedKeys()).isEqualTo(32);
  }

  @Test
  void theKeyBeyondTheBoundEvictsDownToFifteenSixteenthsThenTakesASlot() {
    RateLimiter limiter = limiter(32);
    for (int i = 0; i < 32; i++) {
      limiter.tryAcquire("key-" + i);
    }

    limiter.tryAcquire("one-more");

    assertThat(limiter.trackedKeys()).isEqualTo(31);
  }

  @Test
  void aBoundOfOneKeepsTheNewestKeyOnly() {
    RateLimiter limiter = limiter(1);
    limiter.tryAcquire("old", 10);

    limiter.tryAcquire("new", 10);

    assertThat(limiter.trackedKeys()).isEqualTo(1);
    assertThat(limiter.tryAcquire("new").allowed()).as("its state is kept").isFalse();
    assertThat(limiter.tryAcquire("old").allowed()).as("its state was dropped").isTrue();
  }

  @Test
  void evictionDropsTheStatesClosestToFullAndKeepsADrainedKey() {
    RateLimiter limiter = limiter(16);
    limiter.tryAcquire("drained", 10);
    for (int i = 0; i < 15; i++) {
      limiter.tryAcquire("light-" + i);
    }

    limiter.tryAcquire("newcomer");

    assertThat(limiter.trackedKeys()).isEqualTo(16);
    assertThat(limiter.tryAcquire("drained").allowed()).isFalse();
  }

  @Test
  void aKeyBackToFullMakesRoomBeforeAnyOtherIsEvicted() {
    RateLimiter limiter = limiter(2);
    limiter.tryAcquire("drained", 10);
    limiter.tryAcquire("brief", 1);
    time.advance(Duration.ofSeconds(6)); // "brief" is full again, "drained" holds 1 of 10

    limiter.tryAcquire("newcomer", 10);

    assertThat(limiter.tryAcquire("drained", 2).allowed()).isFalse();
    assertThat(limiter.tryAcquire("newcomer").allowed()).isFalse();
  }

  @Test
  void underGcraEvictionAlsoDropsTheStatesClosestToFull() {
    RateLimiter limiter = RateLimiter.builder(
            Algorithm.GCRA, RateLimit.of(10, Duration.ofMinutes(1)))
        .clock(time)
        .maxKeys(64)
        .build();
    for (int i = 0; i < 48; i++) {
      limiter.tryAcquire("drained-" + i, 10);
    }
    for (int i = 0; i < 16; i++) {
      limiter.tryAcquire("light-" + i);
    }

    limiter.tryAcquire("newcomer"); // evicts down to 60 of 64: four light keys go

    assertThat(limiter.trackedKeys()).isEqualTo(61);
    for (int i = 0; i < 48; i++) {
      assertThat(limiter.tryAcquire("drained-" + i).allowed())
          .as("drained-" + i)
          .isFalse();
    }
  }

  @Test
  void aSweepAndACountOfKeysGiveTheMaintenanceLockBack() throws Exception {
    RateLimiter limiter = limiter(1);
    limiter.tryAcquire("a");
    time.advance(Duration.ofMinutes(5)); // a sweep is due
    limiter.tryAcquire("a"); // runs it on this thread
    assertThat(limiter.trackedKeys()).isEqualTo(1); // sweeps under the lock too

    // another thread must take the lock to evict "a" for its new key
    CompletableFuture<Boolean> other =
        CompletableFuture.supplyAsync(() -> limiter.tryAcquire("b").allowed());

    assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(limiter.trackedKeys()).isEqualTo(1);
  }
}
