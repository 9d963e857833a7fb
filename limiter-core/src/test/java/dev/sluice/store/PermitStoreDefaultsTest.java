package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** A store that implements only the required methods: no line, no news, no count. */
class PermitStoreDefaultsTest {

  /** Grants every question and records it. */
  private static final class Minimal implements PermitStore {
    final List<String> asked = new ArrayList<>();

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime) {
      asked.add(limiter + " " + maxPermits + " " + leaseTime);
      return CompletableFuture.completedFuture(
          Optional.of(() -> CompletableFuture.completedFuture(null)));
    }

    @Override
    public void close() {}
  }

  @Test
  void aTicketedQuestionIsAnsweredAsOneWithoutATicket() {
    Minimal store = new Minimal();

    Optional<PermitStore.PermitLease> lease = store
        .tryAcquire("work", 3, Duration.ofSeconds(2), "node:1")
        .toCompletableFuture()
        .join();

    assertThat(lease).isPresent();
    assertThat(store.asked).containsExactly("work 3 PT2S");
  }

  @Test
  void theCountOfLeasesIsUnknown() {
    assertThat(new Minimal().held("work").toCompletableFuture().join()).isEqualTo(-1);
  }

  @Test
  void aWatchIsNeverCalledAndClosesQuietly() {
    Minimal store = new Minimal();
    List<String> news = new ArrayList<>();

    PermitStore.Watch watch = store.watch("work", () -> news.add("free"));
    store.leave("work", "node:1");
    watch.close();

    assertThat(news).isEmpty();
    assertThat(store.asked).isEmpty();
  }
}
