package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateRequestTest {

  private static final RateLimit LIMIT = RateLimit.of(10, Duration.ofSeconds(1));

  @Test
  void aRequestCostsAtLeastOnePermit() {
    RateRequest one = new RateRequest("rule", "key", Algorithm.TOKEN_BUCKET, LIMIT, 1);

    assertThat(one.cost()).isEqualTo(1);
  }

  @Test
  void aRequestCostingNothingIsRefused() {
    assertThatThrownBy(() -> new RateRequest("rule", "key", Algorithm.TOKEN_BUCKET, LIMIT, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be >= 1 but was 0");
  }
}
