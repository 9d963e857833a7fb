package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.QueueSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A learned cost's first samples: one of no time is no sample, not a typical time of zero. */
class RequestCostLearningTest {

  @Test
  void aFirstSampleOfNoTimeTeachesNothing() {
    RequestCost cost = RequestCost.of(
        "learned",
        1,
        QueueSettings.FIFO,
        new CostCeiling(
            "work", 100, Warnings.to(LoggerFactory.getLogger(RequestCostLearningTest.class))));

    cost.served("/api/instant", 0);
    cost.served("/api/slow", 1000);

    // the typical time is the one real sample: the slow group costs what a typical request does
    assertThat(cost.of(TestRequest.at("/api/slow", Map.of()), name -> null)).isEqualTo(1);
  }
}
