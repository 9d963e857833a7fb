package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.time.VirtualTime;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * What a reload puts in force on a limiter: a new cost or cost scale takes effect for the next
 * request, and a new limit is the new ceiling a cost is held against.
 */
class LimiterEntryReloadTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(LimiterEntryReloadTest.class);

  private final VirtualTime time = new VirtualTime();

  private static LimiterConfig work(int max, String cost, int scale) {
    return LimiterConfig.custom("work")
        .set(LimiterKeys.PATH, "/api/**")
        .set(LimiterKeys.MAX_CONCURRENCY, max)
        .set(LimiterKeys.COST, cost)
        .set(LimiterKeys.COST_SCALE, scale)
        .build();
  }

  private LimiterEntry entry(LimiterConfig config) {
    return Limiters.build(
            Map.of("work", config),
            time,
            time,
            Runnable::run,
            new ConcurrencyListener() {},
            Optional.empty(),
            Warnings.to(LoggerFactory.getLogger(LimiterEntryReloadTest.class)))
        .byName("work")
        .orElseThrow();
  }

  @Test
  void aNewCostIsTheCostOfTheNextRequest() {
    LimiterEntry work = entry(work(8, "2", 1));
    work.inForce(work(8, "3", 1));
    assertThat(work.cost().of(TestRequest.NONE, name -> null)).isEqualTo(3);
  }

  @Test
  void aNewCostScaleAloneScalesTheNextDeclaredCost() {
    LimiterEntry work = entry(work(8, "query:units", 1));
    work.inForce(work(8, "query:units", 10));
    assertThat(work.cost().of(TestRequest.NONE, name -> "40")).isEqualTo(4);
  }

  @Test
  void aNewLimitAloneIsTheNewCeiling() {
    LimiterEntry work = entry(work(8, "3", 1));
    assertThat(work.costCeiling().ceiling()).isEqualTo(8);
    work.inForce(work(2, "3", 1));
    assertThat(work.costCeiling().ceiling()).isEqualTo(2);
    assertThat(work.cost().of(TestRequest.NONE, name -> null)).isEqualTo(3);
    assertThat(work.costCeiling().aboveCeiling())
        .as("3 units above a limit of 2")
        .isEqualTo(1);
  }

  @Test
  void aCostAboveTheLimitWarnsAtStartAndAtTheReloadThatBringsItBeforeAnyRequest() {
    entry(work(2, "3", 1));
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .contains("costs 3 units of the limit", "more than max-concurrency 2");

    log.events().clear();
    LimiterEntry work = entry(work(2, "1", 1));
    assertThat(log.warnings()).isEmpty();
    work.inForce(work(2, "3", 1));
    assertThat(log.warnings()).singleElement().asString().contains("costs 3 units of the limit");
  }

  @Test
  void aReloadThatLeavesTheCostAloneKeepsWhatItLearned() {
    LimiterEntry work = entry(work(8, "learned", 1));
    work.cost().served("/api/cheap", 10);
    work.cost().served("/api/dear", 1000);
    // typical 10 + 0.1 * (1000 - 10) = 109: 1000 / 109 rounds to 9
    assertThat(work.cost().of(TestRequest.at("/api/dear", Map.of()), name -> null))
        .isEqualTo(9);

    work.inForce(work(16, "learned", 1));

    assertThat(work.cost().of(TestRequest.at("/api/dear", Map.of()), name -> null))
        .isEqualTo(9);
  }
}
