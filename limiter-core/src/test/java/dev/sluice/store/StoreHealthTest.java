package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rate.RateDecision;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class StoreHealthTest {

  @Test
  void aStoreThatDoesNotSayOtherwiseIsUpWithNothingDegraded() {
    Stores inMemory = new Stores() {
      @Override
      public RateStore rates() {
        return new RateStore() {
          @Override
          public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
            return CompletableFuture.completedFuture(List.of());
          }

          @Override
          public CompletionStage<Void> refund(List<RateRequest> requests) {
            return CompletableFuture.completedFuture(null);
          }

          @Override
          public String describe() {
            return "memory://test";
          }

          @Override
          public void close() {}
        };
      }

      @Override
      public PermitStore permits() {
        throw new UnsupportedOperationException("not needed here");
      }

      @Override
      public void close() {}
    };

    assertThat(inMemory.health()).isEqualTo(new StoreHealth(StoreHealth.UP, "memory://test", 0, 0));
  }

  @Test
  void negativeCountsAreRefusedWithBothValues() {
    assertThatThrownBy(() -> new StoreHealth(StoreHealth.DOWN, "x", -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("degradedDecisions=-1");
  }

  @Test
  void aNegativeCountOfLostStatesIsRefusedToo() {
    assertThatThrownBy(() -> new StoreHealth(StoreHealth.DOWN, "x", 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counts cannot be negative: degradedDecisions=0, lostStates=-1");
  }

  @Test
  void countsOfZeroAreAccepted() {
    assertThat(new StoreHealth(StoreHealth.PROBING, "x", 0, 0).lostStates()).isZero();
  }
}
