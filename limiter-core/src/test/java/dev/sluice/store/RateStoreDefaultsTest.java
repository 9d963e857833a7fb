package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** A rate store that implements only the required methods. */
class RateStoreDefaultsTest {

  /** Allows up to 3 permits in all, counting only what it allows; records what it is asked. */
  private static final class Minimal implements RateStore {
    final List<RateRequest> asked = new ArrayList<>();
    long count;

    @Override
    public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
      List<RateDecision> decisions = new ArrayList<>();
      for (RateRequest request : requests) {
        asked.add(request);
        if (count + request.cost() <= 3) {
          count += request.cost();
          decisions.add(RateDecision.allowed(3, 3 - count, 0));
        } else {
          decisions.add(RateDecision.rejected(3, 1_000, 1_000));
        }
      }
      return CompletableFuture.completedFuture(decisions);
    }

    @Override
    public CompletionStage<Void> refund(List<RateRequest> requests) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String describe() {
      return "minimal";
    }

    @Override
    public void close() {}
  }

  private static RateRequest request(long cost) {
    return new RateRequest(
        "rule", "key", Algorithm.FIXED_WINDOW, RateLimit.of(3, Duration.ofSeconds(1)), cost);
  }

  @Test
  void countingWhateverTheCountIsTryAcquireInAStoreThatCannotCountPastTheLimit() {
    Minimal store = new Minimal();

    List<RateDecision> decisions = store
        .countAndDecide(List.of(request(2), request(2), request(1)))
        .toCompletableFuture()
        .join();

    assertThat(decisions).extracting(RateDecision::allowed).containsExactly(true, false, true);
    assertThat(store.asked).extracting(RateRequest::cost).containsExactly(2L, 2L, 1L);
    assertThat(store.count).isEqualTo(3);
  }
}
