package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.AdmissionFlow;
import dev.sluice.time.VirtualTime;
import io.javalin.http.Context;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What the admission flow asks of a Javalin request, without a server: its own deadline from the
 * limiter's header, and its cost (constant, declared, learned) with the sample a learned cost is
 * taught from. A stand-in context answers headers, query parameters and attributes.
 */
class ContextRequestsTest {

  private final VirtualTime time = new VirtualTime();
  private final Settings settings =
      Settings.resolve(SluiceProperties.builder().env(Map.of()).system(Map.of()).build(), Map.of());
  private final Warnings warnings = Warnings.to(LoggerFactory.getLogger(ContextRequestsTest.class));
  private final Limiters limiters;
  private final ContextRequests requests;

  ContextRequestsTest() {
    Map<String, LimiterConfig> configs = new LinkedHashMap<>();
    configs.put(
        "plain",
        LimiterConfig.custom("plain")
            .set(LimiterKeys.MAX_CONCURRENCY, 4)
            .set(LimiterKeys.PATH, "/plain")
            .build());
    configs.put(
        "timed",
        LimiterConfig.custom("timed")
            .set(LimiterKeys.MAX_CONCURRENCY, 4)
            .set(LimiterKeys.PATH, "/timed")
            .set(LimiterKeys.DEADLINE_HEADER, "grpc-timeout")
            .build());
    configs.put(
        "declared",
        LimiterConfig.custom("declared")
            .set(LimiterKeys.MAX_CONCURRENCY, 8)
            .set(LimiterKeys.PATH, "/declared")
            .set(LimiterKeys.COST, "query:cost")
            .build());
    configs.put(
        "learned",
        LimiterConfig.custom("learned")
            .set(LimiterKeys.MAX_CONCURRENCY, 8)
            .set(LimiterKeys.PATH, "/learned/*")
            .set(LimiterKeys.COST, "learned")
            .build());
    limiters = Limiters.build(
        configs,
        time,
        time,
        Runnable::run,
        new ConcurrencyListener() {},
        Optional.empty(),
        warnings);
    requests = new ContextRequests(
        settings,
        new SluiceMeterBinder(),
        new WarnOnce(warnings, "rate rules", time, 30, TimeUnit.SECONDS),
        time);
  }

  @AfterEach
  void stop() {
    limiters.shutdown();
  }

  private LimiterEntry limiter(String name) {
    return limiters.byName(name).orElseThrow();
  }

  private static Context request(
      String path, Map<String, String> headers, Map<String, String> query) {
    return StandInContext.of(path, "", new HashMap<>(), (method, args) -> switch (method) {
      case "header" -> headers.get((String) args[0]);
      case "queryParam" -> query.get((String) args[0]);
      default -> throw new UnsupportedOperationException(method);
    });
  }

  @Test
  void aRequestsDeadlineIsReadFromItsLimitersHeaderAndRemembered() {
    Context ctx = request("/timed", Map.of("grpc-timeout", "250m"), Map.of());
    assertThat(requests.budgetNanos(ctx, limiter("timed")))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    assertThat(ctx.<Long>attribute(Gate.DEADLINE))
        .isEqualTo(time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250));
  }

  @Test
  void noHeaderAMalformedOneOrALimiterReadingNoneMeanNoDeadline() {
    Context none = request("/timed", Map.of(), Map.of());
    assertThat(requests.budgetNanos(none, limiter("timed"))).isEqualTo(AdmissionFlow.NO_DEADLINE);
    Context malformed = request("/timed", Map.of("grpc-timeout", "soon"), Map.of());
    assertThat(requests.budgetNanos(malformed, limiter("timed")))
        .isEqualTo(AdmissionFlow.NO_DEADLINE);
    Context unread = request("/plain", Map.of("grpc-timeout", "250m"), Map.of());
    assertThat(requests.budgetNanos(unread, limiter("plain"))).isEqualTo(AdmissionFlow.NO_DEADLINE);
    assertThat(none.<Long>attribute(Gate.DEADLINE)).isNull();
    assertThat(malformed.<Long>attribute(Gate.DEADLINE)).isNull();
    assertThat(unread.<Long>attribute(Gate.DEADLINE)).isNull();
  }

  @Test
  void aSpentDeadlineIsABudgetOfZeroAndNotRemembered() {
    Context ctx = request("/timed", Map.of("grpc-timeout", "0m"), Map.of());
    assertThat(requests.budgetNanos(ctx, limiter("timed"))).isZero();
    assertThat(ctx.<Long>attribute(Gate.DEADLINE)).isNull();
  }

  @Test
  void onlyAConstantCostOfOneCostsOne() {
    assertThat(requests.costsOne(limiter("plain"))).isTrue();
    assertThat(requests.costsOne(limiter("declared"))).isFalse();
    assertThat(requests.costsOne(limiter("learned"))).isFalse();
  }

  @Test
  void aDeclaredCostIsTakenFromTheRequestAndABadOneIsABadRequest() {
    Context ctx = request("/declared", Map.of(), Map.of("cost", "3"));
    assertThat(requests.units(ctx, limiter("declared"), requests.info(ctx, "/declared")))
        .isEqualTo(3);
    assertThat(ctx.<CostSample>attribute(CostSample.ATTRIBUTE))
        .as("a declared cost learns nothing")
        .isNull();

    Context bad = request("/declared", Map.of(), Map.of("cost", "many"));
    assertThatThrownBy(
            () -> requests.units(bad, limiter("declared"), requests.info(bad, "/declared")))
        .isInstanceOf(AdmissionFlow.BadRequest.class)
        .hasMessageContaining("cost");
  }

  @Test
  void aLearnedCostRemembersTheRequestsGroupForItsServiceTime() {
    LimiterEntry learned = limiter("learned");
    Context first = request("/learned/a", Map.of(), Map.of());
    assertThat(requests.units(first, learned, requests.info(first, "/learned/a")))
        .isEqualTo(1);
    CostSample sample = first.attribute(CostSample.ATTRIBUTE);
    assertThat(sample).isNotNull();
    assertThat(sample.group).isEqualTo("/learned/a");

    learned.cost().served("/learned/b", 10_000_000);
    learned.cost().served("/learned/a", 50_000_000);
    Context next = request("/learned/a", Map.of(), Map.of());
    // typical 10 ms then 14 ms (weight 0.1); /learned/a's mean 50 ms: 4 units
    assertThat(requests.units(next, learned, requests.info(next, "/learned/a"))).isEqualTo(4);
  }
}
