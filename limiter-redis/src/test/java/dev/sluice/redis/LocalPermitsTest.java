package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.PermitStore.PermitLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Global permits while Redis is down: this node's share of each maximum, counted in memory. */
class LocalPermitsTest {

  private static final Duration LEASE = Duration.ofSeconds(3);

  private final List<String> freed = new ArrayList<>();
  private final LocalPermits local = new LocalPermits(3, freed::add);

  private int granted(String limiter, int max, int running, int tries) {
    int n = 0;
    for (int i = 0; i < tries; i++) {
      if (local.tryAcquire(limiter, max, LEASE, running).isPresent()) {
        n++;
      }
    }
    return n;
  }

  private LocalPermits.LocalLease take(String limiter, int max) {
    return (LocalPermits.LocalLease) local.tryAcquire(limiter, max, LEASE, 0).orElseThrow();
  }

  @Test
  void aNodeGrantsItsShareOfTheMaximum() {
    assertThat(granted("a", 7, 0, 5)).isEqualTo(2);
  }

  @Test
  void theShareIsAtLeastOne() {
    assertThat(granted("a", 2, 0, 3)).isEqualTo(1);
  }

  @Test
  void jobsRunningUnderRedisLeasesCountAgainstTheShare() {
    assertThat(granted("a", 9, 2, 5)).isEqualTo(1);
    assertThat(granted("b", 9, 3, 5)).isZero();
  }

  @Test
  void eachLimiterHasItsOwnShare() {
    assertThat(granted("a", 6, 0, 5)).isEqualTo(2);
    assertThat(granted("b", 6, 0, 5)).isEqualTo(2);
  }

  @Test
  void aGrantedPermitRemembersWhatToWriteToRedis() {
    LocalPermits.LocalLease lease = take("a", 6);

    assertThat(lease.limiter).isEqualTo("a");
    assertThat(lease.maxPermits).isEqualTo(6);
    assertThat(lease.leaseTime).isEqualTo(LEASE);
    assertThat(local.unadopted()).containsExactly(lease);
    assertThat(local.unadopted("a")).isEqualTo(1);
    assertThat(local.unadopted("b")).isZero();
  }

  @Test
  void nothingIsUnadoptedAtFirst() {
    assertThat(local.unadopted()).isEmpty();
    assertThat(local.unadopted("a")).isZero();
  }

  @Test
  void theUnadoptedAreCountedPerLimiter() {
    take("a", 9);
    take("a", 9);
    take("b", 9);

    assertThat(local.unadopted("a")).isEqualTo(2);
    assertThat(local.unadopted("b")).isEqualTo(1);
    assertThat(local.unadopted()).hasSize(3);
  }

  @Test
  void aReleaseGivesThePermitBackOnceAndTellsTheWaiters() {
    LocalPermits.LocalLease lease = take("a", 3);
    assertThat(granted("a", 3, 0, 1)).isZero();

    lease.release().toCompletableFuture().join();
    lease.release().toCompletableFuture().join();

    assertThat(freed).containsExactly("a");
    assertThat(local.unadopted()).isEmpty();
    assertThat(granted("a", 3, 0, 2)).isEqualTo(1);
  }

  @Test
  void oneAdoptionAtATime() {
    LocalPermits.LocalLease lease = take("a", 3);

    assertThat(lease.startAdopting()).isTrue();
    assertThat(lease.startAdopting()).isFalse();
  }

  @Test
  void aFailedAdoptionIsTriedAgain() {
    LocalPermits.LocalLease lease = take("a", 3);
    lease.startAdopting();

    assertThat(lease.adopted(null)).isFalse();

    assertThat(local.unadopted()).containsExactly(lease);
    assertThat(lease.startAdopting()).isTrue();
  }

  @Test
  void anAdoptedPermitIsReleasedInRedisWithIt() {
    LocalPermits.LocalLease lease = take("a", 3);
    AtomicInteger releasedInRedis = new AtomicInteger();
    PermitLease inRedis = () -> {
      releasedInRedis.incrementAndGet();
      return CompletableFuture.completedFuture(null);
    };
    lease.startAdopting();

    assertThat(lease.adopted(inRedis)).isTrue();

    assertThat(local.unadopted()).isEmpty();
    assertThat(local.unadopted("a")).isZero();
    assertThat(lease.startAdopting()).isFalse();
    // it still counts against the local share until released
    assertThat(granted("a", 3, 0, 1)).isZero();
    lease.release().toCompletableFuture().join();
    assertThat(releasedInRedis).hasValue(1);
    assertThat(freed).containsExactly("a");
  }

  @Test
  void aPermitReleasedDuringItsAdoptionIsGivenBackInRedis() {
    LocalPermits.LocalLease lease = take("a", 3);
    lease.startAdopting();
    lease.release().toCompletableFuture().join();

    assertThat(lease.adopted(() -> CompletableFuture.completedFuture(null))).isFalse();
    assertThat(lease.startAdopting()).isFalse();
  }

  @Test
  void underAllowNothingIsHeld() {
    assertThat(LocalPermits.NOTHING_HELD.release().toCompletableFuture().isDone())
        .isTrue();
  }
}
