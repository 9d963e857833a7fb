package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.config.QueueSettings;
import dev.sluice.request.Actor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a request costs a limiter, without a server: a constant, a number the caller declares in a
 * header or query parameter (scaled, checked), or a cost learned from service times per group;
 * and the ceiling that warns once when a cost exceeds the limit's whole size.
 */
class RequestCostTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(RequestCostTest.class);

  private CostCeiling ceiling(int maxConcurrency) {
    return new CostCeiling("work", maxConcurrency, Warnings.to(log.logger()));
  }

  private List<String> warnings() {
    return log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private static TestRequest at(String path) {
    return TestRequest.at(path, Map.of());
  }

  @Test
  void aConstantCostIsTakenForEveryRequestAndOnlyOneCountsAsTheFreeCase() {
    CostCeiling ceiling = ceiling(8);
    RequestCost three = RequestCost.of(" 3 ", 1, QueueSettings.FIFO, ceiling);
    assertThat(three.of(TestRequest.NONE, name -> "99")).isEqualTo(3);
    assertThat(three.one()).isFalse();
    assertThat(three.constant()).isEqualTo(3);
    assertThat(three.learns()).isFalse();
    assertThat(three.declares()).isFalse();
    assertThat(three.describe(0)).isEqualTo("cost=3 for every request");
    assertThat(ceiling.largestUnits()).isEqualTo(3);
    assertThat(ceiling.aboveCeiling()).isZero();

    RequestCost one = RequestCost.of("1", 1, QueueSettings.FIFO, ceiling(8));
    assertThat(one.one()).isTrue();
    assertThat(one.of(TestRequest.NONE, name -> null)).isEqualTo(1);
  }

  @Test
  void aDeclaredCostIsReadFromItsHeaderOrQueryParameterAndOneWhenAbsent() {
    RequestCost header = RequestCost.of("Header: X-Cost ", 1, QueueSettings.FIFO, ceiling(100));
    assertThat(header.declares()).isTrue();
    assertThat(header.learns()).isFalse();
    assertThat(header.one()).isFalse();
    assertThat(header.of(TestRequest.withHeaders(Map.of("x-cost", " 7 ")), name -> "50"))
        .isEqualTo(7);
    assertThat(header.of(TestRequest.withHeaders(Map.of("x-cost", "  ")), name -> "50"))
        .isEqualTo(1);
    assertThat(header.of(TestRequest.NONE, name -> "50")).isEqualTo(1);
    assertThat(header.describe(7)).isEqualTo("header X-Cost: 7, cost-scale 1");

    List<String> asked = new ArrayList<>();
    RequestCost query = RequestCost.of("QUERY:ms", 10, QueueSettings.FIFO, ceiling(100));
    assertThat(query.declares()).isTrue();
    assertThat(query.scale()).isEqualTo(10);
    assertThat(query.of(TestRequest.withHeaders(Map.of("ms", "1")), name -> {
          asked.add(name);
          return "120";
        }))
        .isEqualTo(12);
    assertThat(asked).containsExactly("ms");
    assertThat(query.of(TestRequest.NONE, name -> null)).isEqualTo(1);
    assertThat(query.describe(120)).isEqualTo("query parameter ms=120, cost-scale 10");
  }

  @Test
  void aDeclaredCostBelowOneOrNotANumberIsABadCostNamingWhereItCameFrom() {
    RequestCost header = RequestCost.of("header:X-Cost", 1, QueueSettings.FIFO, ceiling(100));
    for (String bad : new String[] {"0", "-5", "abc", "1.5"}) {
      assertThatThrownBy(
              () -> header.of(TestRequest.withHeaders(Map.of("x-cost", bad)), name -> null))
          .as(bad)
          .isInstanceOf(RequestCost.BadCost.class)
          .hasMessage("header X-Cost must be a whole number >= 1 (the request's cost) but was '"
              + bad + "'");
    }
    String longText = "x".repeat(40);
    assertThatThrownBy(
            () -> header.of(TestRequest.withHeaders(Map.of("x-cost", longText)), n -> null))
        .hasMessageEndingWith("but was '" + "x".repeat(32) + "...'");
    String exactly32 = "y".repeat(32);
    assertThatThrownBy(
            () -> header.of(TestRequest.withHeaders(Map.of("x-cost", exactly32)), n -> null))
        .hasMessageEndingWith("but was '" + exactly32 + "'");

    RequestCost query = RequestCost.of("query:ms", 2, QueueSettings.FIFO, ceiling(100));
    assertThatThrownBy(() -> query.of(TestRequest.NONE, name -> "4294967295"))
        .isInstanceOf(RequestCost.BadCost.class)
        .hasMessage("query parameter ms must be at most 4294967294 (the request's cost) but was"
            + " '4294967295'");
    // the largest that fits: every unit of an int, the scale's worth each
    assertThat(query.of(TestRequest.NONE, name -> "4294967294")).isEqualTo(Integer.MAX_VALUE);
    // one unit: half the scale rounds up
    assertThat(query.of(TestRequest.NONE, name -> "1")).isEqualTo(1);
    assertThat(query.of(TestRequest.NONE, name -> "3")).isEqualTo(2);
  }

  @Test
  void aLearnedCostIsTheGroupsServiceTimeOverTheTypicalOneRoundedAndAtLeastOne() {
    CostCeiling ceiling = ceiling(100);
    RequestCost cost = RequestCost.of("learned", 1, QueueSettings.FIFO, ceiling);
    assertThat(cost.learns()).isTrue();
    assertThat(cost.declares()).isFalse();
    assertThat(cost.one()).isFalse();
    assertThat(cost.describe(0)).isEqualTo("learned from service times");
    assertThat(cost.group(at("/api/dear"))).isEqualTo("/api/dear");
    // nothing learned yet: every request costs one
    assertThat(cost.of(at("/api/dear"), name -> null)).isEqualTo(1);

    cost.served("/api/cheap", 10);
    cost.served("/api/dear", 1000);
    // typical 10 + 0.1 * (1000 - 10) = 109: 1000 / 109 rounds to 9, 10 / 109 to 0, so 1
    assertThat(cost.of(at("/api/dear"), name -> null)).isEqualTo(9);
    assertThat(cost.of(at("/api/cheap"), name -> null)).isEqualTo(1);
    assertThat(cost.of(at("/api/unknown"), name -> null)).isEqualTo(1);

    // no time, or a clock gone backwards, teaches nothing
    cost.served("/api/dear", 0);
    cost.served("/api/dear", -5_000);
    assertThat(cost.of(at("/api/dear"), name -> null)).isEqualTo(9);

    cost.served("/api/dear", 2000);
    // typical 109 + 0.1 * 1891 = 298.1; the group's mean 1000 + 0.1 * 1000 = 1100: 3.69 rounds to 4
    assertThat(cost.of(at("/api/dear"), name -> null)).isEqualTo(4);
    assertThat(ceiling.largestUnits()).isEqualTo(9);
  }

  @Test
  void aLearnedCostGroupsByTheFairQueuesKeyAndStopsLearningNewGroupsAtTheCap() {
    QueueSettings byTenant =
        new QueueSettings(true, Optional.of(Actor.parse("header:x-tenant")), 0, Optional.empty());
    RequestCost cost = RequestCost.of("learned", 1, byTenant, ceiling(100));
    TestRequest tenantA = TestRequest.at("/api/a", Map.of("x-tenant", "a"));
    assertThat(cost.group(tenantA)).isEqualTo("a");
    assertThat(cost.group(at("/api/a"))).isEqualTo("unknown");

    for (int i = 0; i < RequestCost.MAX_GROUPS; i++) {
      cost.served("group-" + i, 100);
    }
    cost.served("a", 10_000);
    // the typical time moved, but the new group has no mean of its own: it costs one
    assertThat(cost.of(tenantA, name -> null)).isEqualTo(1);
  }

  @Test
  void aLearnedCostIgnoresSamplesWhenItDoesNotLearn() {
    RequestCost constant = RequestCost.of("2", 1, QueueSettings.FIFO, ceiling(100));
    constant.served("/api/x", 1_000_000);
    assertThat(constant.of(at("/api/x"), name -> null)).isEqualTo(2);
  }

  @Test
  void aConstantCostAboveTheCeilingWarnsAtOnceAndAgainOnlyAfterComingBackBelow() {
    CostCeiling ceiling = ceiling(4);
    RequestCost eight = RequestCost.of("8", 1, QueueSettings.FIFO, ceiling);
    ceiling.inForce(4, eight);
    assertThat(warnings())
        .singleElement()
        .asString()
        .contains(
            "Sluice limiter 'work': a request costs 8 units of the limit (cost=8 for every"
                + " request), more than max-concurrency 4",
            "raise max-concurrency or lower the cost",
            "(cost.aboveCeiling)");
    assertThat(eight.of(TestRequest.NONE, n -> null)).isEqualTo(8);
    assertThat(ceiling.aboveCeiling()).isEqualTo(1);
    assertThat(warnings()).hasSize(1);

    ceiling.inForce(16, eight);
    assertThat(ceiling.ceiling()).isEqualTo(16);
    assertThat(warnings()).hasSize(1);
    eight.of(TestRequest.NONE, n -> null);
    assertThat(ceiling.aboveCeiling()).isEqualTo(1);
    ceiling.inForce(2, eight);
    assertThat(warnings()).hasSize(2);
    assertThat(warnings().get(1)).contains("more than max-concurrency 2");
  }

  @Test
  void aDeclaredCostAboveTheCeilingWarnsOnceWithAScaleThatMakesItHalfTheCeiling() {
    CostCeiling ceiling = ceiling(16);
    RequestCost cost = RequestCost.of("query:ms", 1, QueueSettings.FIFO, ceiling);
    ceiling.inForce(16, cost);
    assertThat(warnings()).isEmpty();
    assertThat(cost.of(TestRequest.NONE, n -> "16")).isEqualTo(16);
    assertThat(ceiling.aboveCeiling()).isZero();
    assertThat(warnings()).isEmpty();

    assertThat(cost.of(TestRequest.NONE, n -> "801")).isEqualTo(801);
    // 801 over half the ceiling (8), rounded up: a scale of 101, which makes it 8 units
    assertThat(warnings())
        .singleElement()
        .asString()
        .contains(
            "a request costs 801 units of the limit (query parameter ms=801, cost-scale 1)",
            "set sluice.limiters.work.cost-scale to the caller's units per unit of the limit (101"
                + " makes this cost 8 units), or raise max-concurrency");
    cost.of(TestRequest.NONE, n -> "900");
    cost.of(TestRequest.NONE, n -> "20");
    assertThat(warnings()).hasSize(1);
    assertThat(ceiling.aboveCeiling()).isEqualTo(3);
    assertThat(ceiling.largestUnits()).isEqualTo(900);
    assertThat(ceiling.largestDeclared()).isEqualTo(900);
  }

  @Test
  void aCeilingOfOneSuggestsTheDeclaredCostItselfAsTheScale() {
    CostCeiling ceiling = ceiling(1);
    RequestCost cost = RequestCost.of("header:X-Cost", 1, QueueSettings.FIFO, ceiling);
    cost.of(TestRequest.withHeaders(Map.of("x-cost", "5")), n -> null);
    assertThat(warnings()).singleElement().asString().contains("(5 makes this cost 1 units)");
  }

  @Test
  void theLargestDeclaredCostIsTheOneOfTheLargestScaledCost() {
    CostCeiling ceiling = ceiling(100);
    RequestCost cost = RequestCost.of("query:ms", 100, QueueSettings.FIFO, ceiling);
    cost.of(TestRequest.NONE, n -> "800");
    cost.of(TestRequest.NONE, n -> "849");
    cost.of(TestRequest.NONE, n -> "120");
    assertThat(ceiling.largestUnits()).isEqualTo(8);
    assertThat(ceiling.largestDeclared()).isEqualTo(800);
    cost.of(TestRequest.NONE, n -> "850");
    assertThat(ceiling.largestUnits()).isEqualTo(9);
    assertThat(ceiling.largestDeclared()).isEqualTo(850);
  }
}
