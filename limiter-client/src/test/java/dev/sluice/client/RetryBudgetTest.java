package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {

  @Test
  void retriesAreAtMostTheReservePlusTheRatioOfRequests() {
    RetryBudget budget = new RetryBudget(0.1, 10);
    int retries = 0;
    for (int request = 0; request < 1000; request++) {
      budget.onRequest();
      // a client that wants to retry every request three times
      for (int i = 0; i < 3; i++) {
        if (budget.tryRetry()) {
          retries++;
        }
      }
    }
    assertThat(retries).isEqualTo(10 + 100);
  }

  @Test
  void anEmptyBudgetRefusesUntilRequestsRefillIt() {
    RetryBudget budget = new RetryBudget(0.5, 0);
    assertThat(budget.tryRetry()).isFalse();
    budget.onRequest();
    assertThat(budget.tryRetry()).isFalse();
    budget.onRequest();
    assertThat(budget.tryRetry()).isTrue();
    assertThat(budget.tryRetry()).isFalse();
  }

  @Test
  void aLongCalmSpellBanksABoundedNumberOfRetries() {
    RetryBudget budget = new RetryBudget(0.1, 10);
    for (int i = 0; i < 1_000_000; i++) {
      budget.onRequest();
    }
    assertThat(budget.available()).isEqualTo(100);
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> new RetryBudget(1.5, 0))
        .hasMessageContaining("ratio")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> new RetryBudget(Double.NaN, 0)).hasMessageContaining("NaN");
    assertThatThrownBy(() -> new RetryBudget(0.1, -1))
        .hasMessageContaining("minRetries")
        .hasMessageContaining("-1");
  }
}
