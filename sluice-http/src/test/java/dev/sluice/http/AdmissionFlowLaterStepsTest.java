package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.PathLimiter;
import dev.sluice.http.AdmissionFlow.Stopping;
import dev.sluice.http.AdmissionFlow.Verdict;
import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimiter;
import dev.sluice.request.RequestInfo;
import dev.sluice.request.Scope;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The steps a door takes later or prices itself, on a virtual clock with real limiters and rules:
 * a rule counted in a shared store that answers later, a shaper rule's delay, the limiter step
 * alone, and a request's cost.
 */
class AdmissionFlowLaterStepsTest {

  private final VirtualTime time = new VirtualTime();
  private final Door door = new Door();

  /** A request of the test door: its cost header, if any. */
  record Request(String cost) {
    static Request plain() {
      return new Request(null);
    }
  }

  /**
   * The test door: prices the requests of the limiters it is told of by their cost header, counts
   * the infos it builds, and hands out one info object it reuses.
   */
  static final class Door implements AdmissionFlow.Door<Request, PathLimiter> {
    final List<PathLimiter> priced = new ArrayList<>();
    final List<RuntimeException> ruleFailures = new ArrayList<>();
    final ReusedInfo info = new ReusedInfo();
    int infos;

    @Override
    public RequestInfo info(Request request, String path) {
      infos++;
      info.path = path;
      return info;
    }

    @Override
    public long budgetNanos(Request request, PathLimiter limiter) {
      return AdmissionFlow.NO_DEADLINE;
    }

    @Override
    public void rulesFailed(RuntimeException failure) {
      ruleFailures.add(failure);
    }

    @Override
    public boolean costsOne(PathLimiter limiter) {
      return !priced.contains(limiter);
    }

    @Override
    public int units(Request request, PathLimiter limiter, RequestInfo info) {
      assertSame(this.info, info);
      if (request.cost() == null) {
        return 1;
      }
      try {
        return Integer.parseInt(request.cost());
      } catch (NumberFormatException e) {
        throw new AdmissionFlow.BadRequest("cost must be a number, was '" + request.cost() + "'");
      }
    }
  }

  /** One info object for every request, as a door that reuses one per thread. */
  static final class ReusedInfo implements RequestInfo {
    String path;

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public String clientIp() {
      return "10.0.0.1";
    }

    @Override
    public Optional<String> account() {
      return Optional.empty();
    }

    @Override
    public Optional<String> device() {
      return Optional.empty();
    }

    @Override
    public Optional<String> header(String name) {
      return Optional.empty();
    }
  }

  /** A shared store that counts with real rate limiters and answers when the test lets it. */
  class HeldStore implements RateStore {
    private final Map<String, RateLimiter> counters = new ConcurrentHashMap<>();
    private final List<Runnable> held = new ArrayList<>();

    @Override
    public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
      CompletableFuture<List<RateDecision>> answer = new CompletableFuture<>();
      held.add(() -> {
        List<RateDecision> decisions = new ArrayList<>();
        for (RateRequest r : requests) {
          decisions.add(counters
              .computeIfAbsent(r.ruleId(), id -> RateLimiter.of(r.algorithm(), r.limit(), time))
              .tryAcquire(r.key(), r.cost()));
        }
        answer.complete(decisions);
      });
      return answer;
    }

    @Override
    public CompletionStage<Void> refund(List<RateRequest> requests) {
      return CompletableFuture.completedFuture(null);
    }

    void answer() {
      held.forEach(Runnable::run);
      held.clear();
    }

    @Override
    public String describe() {
      return "held in memory";
    }

    @Override
    public void close() {}
  }

  private PathLimiter limiter(LimiterConfig.Builder config) {
    LimiterConfig c = config.build();
    return new PathLimiter(
        c,
        ConcurrencyLimiter.builder(c.name())
            .spec(c.spec())
            .clock(time)
            .scheduler(time)
            .executor(Runnable::run)
            .build());
  }

  /** {@code permits} permits, a queue of 4, on /api/*. */
  private PathLimiter work(int permits) {
    return limiter(LimiterConfig.custom("work")
        .path("/api/*")
        .maxConcurrency(permits)
        .maxQueue(4)
        .queueTimeout(Duration.ofSeconds(1)));
  }

  private AdmissionFlow<Request> flow(PathLimiter limiter, RateRules rules) {
    return new AdmissionFlow<>(List.of(limiter), rules, door, Stopping.REFUSES_EVERY_REQUEST);
  }

  /** One request a minute to /api/*, counted in {@code store}. */
  private RateRules sharedOnePerMinute(RateStore store) {
    return RateRules.builder()
        .rules(RuleSet.of(List.of(Rule.builder()
            .id("shared")
            .resource("/api/*")
            .limit(1, Duration.ofMinutes(1))
            .scope(Scope.GLOBAL)
            .build())))
        .store(store)
        .clock(time)
        .build();
  }

  @Test
  void aRuleInASharedStoreLeavesTheRequestPendingWithoutAPermit() {
    PathLimiter work = work(1);
    AdmissionFlow<Request> flow = flow(work, sharedOnePerMinute(new HeldStore()));
    Passage passage = new Passage();

    assertEquals(Verdict.RULES_PENDING, flow.admit(Request.plain(), "GET", "/api/x", passage));

    assertFalse(passage.pending().isDone());
    assertSame(work, passage.limiter());
    assertNull(passage.permit());
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void afterTheStoreAdmitsTheLimiterIsAskedWithTheRulesDecisions() {
    PathLimiter work = work(1);
    HeldStore store = new HeldStore();
    AdmissionFlow<Request> flow = flow(work, sharedOnePerMinute(store));
    Passage first = new Passage();
    flow.admit(Request.plain(), "GET", "/api/x", first);
    store.answer();
    RateVerdict decided = first.pending().join();

    Passage later = new Passage();
    assertEquals(
        Verdict.ADMITTED, flow.afterRules(Request.plain(), "/api/x", work, decided, later));

    assertNotNull(later.permit());
    assertTrue(later.outcomes().allowed());
    assertEquals("shared", later.outcomes().rule(0).id());
    assertEquals(1, work.limiter().snapshot().inFlight());
  }

  @Test
  void afterTheStoreRefusesTheRequestIsRateLimitedWithoutAPermit() {
    PathLimiter work = work(1);
    HeldStore store = new HeldStore();
    AdmissionFlow<Request> flow = flow(work, sharedOnePerMinute(store));
    Passage first = new Passage();
    Passage second = new Passage();
    flow.admit(Request.plain(), "GET", "/api/x", first);
    flow.admit(Request.plain(), "GET", "/api/x", second);
    store.answer();

    Passage later = new Passage();
    assertEquals(
        Verdict.RATE_LIMITED,
        flow.afterRules(Request.plain(), "/api/x", work, second.pending().join(), later));

    assertFalse(later.outcomes().allowed());
    assertNull(later.permit());
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void aStoreThatFailsLetsTheRequestOnAndTellsTheDoor() {
    RateStore failing = new HeldStore() {
      @Override
      public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
        throw new IllegalStateException("the store is broken");
      }
    };
    AdmissionFlow<Request> flow = flow(work(1), sharedOnePerMinute(failing));
    Passage passage = new Passage();

    Verdict verdict = flow.admit(Request.plain(), "GET", "/api/x", passage);

    assertEquals(Verdict.ADMITTED, verdict);
    assertEquals(1, door.ruleFailures.size());
  }

  @Test
  void aShaperRuleHoldsTheRequestBeforeItAsksTheLimiter() {
    PathLimiter work = work(4);
    RateRules shaper = RateRules.builder()
        .rules(RuleSet.of(List.of(Rule.builder()
            .id("shaped")
            .resource("/api/*")
            .limit(1, Duration.ofSeconds(1))
            .burst(3)
            .algorithm(Algorithm.LEAKY_BUCKET_SHAPER)
            .build())))
        .clock(time)
        .build();
    AdmissionFlow<Request> flow = flow(work, shaper);
    assertEquals(Verdict.ADMITTED, flow.admit(Request.plain(), "GET", "/api/a", new Passage()));
    Passage shaped = new Passage();

    assertEquals(Verdict.SHAPED, flow.admit(Request.plain(), "GET", "/api/b", shaped));

    assertEquals(Duration.ofSeconds(1).toNanos(), shaped.delayNanos());
    assertTrue(shaped.outcomes().allowed());
    assertSame(work, shaped.limiter());
    assertEquals(1, work.limiter().snapshot().inFlight());
    time.advance(Duration.ofSeconds(1));
    Passage later = new Passage();
    assertEquals(Verdict.ADMITTED, flow.acquire(Request.plain(), "/api/b", work, later));
    assertEquals(2, work.limiter().snapshot().inFlight());
  }

  @Test
  void theLimiterStepAloneAsksNoRuleAndWaitsLikeAnyOther() {
    PathLimiter work = work(1);
    AdmissionFlow<Request> flow = flow(work, sharedOnePerMinute(new HeldStore()));
    Passage held = new Passage();
    assertEquals(Verdict.ADMITTED, flow.acquire(Request.plain(), "/anywhere", work, held));
    Passage queued = new Passage();

    assertEquals(Verdict.WAITING, flow.acquire(Request.plain(), "/anywhere", work, queued));

    assertNull(queued.outcomes());
    assertSame(work, queued.limiter());
    held.permit().release();
    Permit granted = queued.waiting().join();
    assertNotNull(granted);
  }

  @Test
  void aPricedRequestTakesItsUnitsOfTheLimit() {
    PathLimiter work = work(4);
    door.priced.add(work);
    Passage passage = new Passage();

    assertEquals(
        Verdict.ADMITTED, flow(work, null).admit(new Request("3"), "GET", "/api/x", passage));

    assertEquals(3, passage.caller().cost());
    assertEquals(3, work.limiter().snapshot().inFlight());
    assertEquals(1, door.infos);
    passage.permit().release();
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void aPricedRequestWaitsWhenItsUnitsAreNotFree() {
    PathLimiter work = work(4);
    door.priced.add(work);
    AdmissionFlow<Request> flow = flow(work, null);
    flow.admit(new Request("2"), "GET", "/api/a", new Passage());
    Passage queued = new Passage();

    assertEquals(Verdict.WAITING, flow.admit(new Request("3"), "GET", "/api/b", queued));

    assertEquals(3, queued.caller().cost());
  }

  @Test
  void aBadCostIsABadRequestWithTheDoorsMessage() {
    PathLimiter work = work(4);
    door.priced.add(work);
    Passage passage = new Passage();

    assertEquals(
        Verdict.BAD_REQUEST, flow(work, null).admit(new Request("lots"), "GET", "/api/x", passage));

    assertEquals("cost must be a number, was 'lots'", passage.badRequest());
    assertNull(passage.permit());
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void aRequestAtCostOneIsNeverPriced() {
    PathLimiter work = work(4);
    Passage passage = new Passage();

    assertEquals(
        Verdict.ADMITTED, flow(work, null).admit(new Request("lots"), "GET", "/api/x", passage));

    assertEquals(0, door.infos);
    assertNull(passage.caller());
  }

  @Test
  void aPricedQueueAsksWhoTheRequestIsOnceForTheRulesTheQueueAndTheCost() {
    PathLimiter fair = limiter(LimiterConfig.custom("fair")
        .path("/api/*")
        .maxConcurrency(1)
        .maxQueue(4)
        .parse(LimiterKeys.QUEUE, "fair", "test")
        .parse(LimiterKeys.QUEUE_KEY, "ip", "test"));
    door.priced.add(fair);
    RateRules generous = RateRules.builder()
        .rules(RuleSet.of(List.of(
            Rule.builder().resource("/api/*").limit(100, Duration.ofMinutes(1)).build())))
        .clock(time)
        .build();
    AdmissionFlow<Request> flow = flow(fair, generous);
    Passage passage = new Passage();

    assertEquals(Verdict.ADMITTED, flow.admit(new Request("1"), "GET", "/api/x", passage));

    assertEquals(1, door.infos);
    assertEquals("10.0.0.1", passage.caller().key());
  }

  @Test
  void aReusedPassageForgetsTheDelayThePendingDecisionAndTheBadRequest() {
    PathLimiter work = work(4);
    door.priced.add(work);
    AdmissionFlow<Request> flow = flow(work, sharedOnePerMinute(new HeldStore()));
    Passage passage = new Passage();
    assertEquals(Verdict.RULES_PENDING, flow.admit(Request.plain(), "GET", "/api/x", passage));

    assertEquals(Verdict.BAD_REQUEST, flow.acquire(new Request("x"), "/api/x", work, passage));
    assertNull(passage.pending());
    assertEquals(Verdict.PASS, flow.admit(Request.plain(), "GET", "/other", passage));
    assertNull(passage.badRequest());
    assertEquals(0, passage.delayNanos());
  }
}
