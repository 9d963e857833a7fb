package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.PathLimiter;
import dev.sluice.http.AdmissionFlow.Stopping;
import dev.sluice.http.AdmissionFlow.Verdict;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The admission steps every door shares, on a virtual clock, with a door of plain maps. */
class AdmissionFlowTest {

  private final VirtualTime time = new VirtualTime();
  private final Requests requests = new Requests();

  /** A request of the test door: its headers, and the budget it brings (or none). */
  record Request(Map<String, String> headers, long budgetNanos) {
    static Request plain() {
      return new Request(Map.of(), AdmissionFlow.NO_DEADLINE);
    }

    static Request from(String tenant) {
      return new Request(Map.of("x-tenant", tenant), AdmissionFlow.NO_DEADLINE);
    }

    static Request withBudget(Duration budget) {
      return new Request(Map.of(), budget.toNanos());
    }
  }

  /** The test door: counts the infos it builds and keeps the rule failures it is told of. */
  static final class Requests implements AdmissionFlow.Requests<Request> {
    int infos;
    final List<RuntimeException> ruleFailures = new ArrayList<>();

    @Override
    public boolean bypassed(String path) {
      return path.startsWith("/health");
    }

    @Override
    public RequestInfo info(Request request, String path) {
      infos++;
      return new RequestInfo() {
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
          if (name.equals("x-broken")) {
            throw new IllegalStateException("a header that cannot be read");
          }
          return Optional.ofNullable(request.headers().get(name));
        }
      };
    }

    @Override
    public long budgetNanos(Request request, PathLimiter limiter) {
      return request.budgetNanos();
    }

    @Override
    public void rulesFailed(RuntimeException failure) {
      ruleFailures.add(failure);
    }
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

  /** One permit, one place in the queue, a second's queue timeout, on /api/*. */
  private PathLimiter oneAtATime() {
    return limiter(LimiterConfig.custom("work")
        .path("/api/*")
        .maxConcurrency(1)
        .maxQueue(1)
        .queueTimeout(Duration.ofSeconds(1)));
  }

  /** One request a minute to /api/* or /open/*. */
  private RateRules onePerMinute() {
    return RateRules.builder()
        .rules(RuleSet.of(List.of(
            Rule.builder()
                .id("api")
                .resource("/api/*")
                .limit(1, Duration.ofMinutes(1))
                .build(),
            Rule.builder()
                .id("open")
                .resource("/open/*")
                .limit(1, Duration.ofMinutes(1))
                .build())))
        .clock(time)
        .build();
  }

  private AdmissionFlow<Request> flow(PathLimiter limiter, RateRules rules, Stopping stopping) {
    return new AdmissionFlow<>(List.of(limiter), rules, requests, stopping);
  }

  private AdmissionFlow<Request> flow(PathLimiter limiter) {
    return flow(limiter, null, Stopping.REFUSES_EVERY_REQUEST);
  }

  @Test
  void aFreePermitIsHeldAtOnceWithoutAskingWhoTheRequestIs() {
    PathLimiter work = oneAtATime();
    Passage passage = new Passage();

    assertEquals(Verdict.ADMITTED, flow(work).admit(Request.plain(), "GET", "/api/x", passage));

    assertNotNull(passage.permit());
    assertSame(work, passage.limiter());
    assertEquals(1, work.limiter().snapshot().inFlight());
    assertEquals(0, requests.infos);
    assertNull(passage.caller());
  }

  @Test
  void aPathNoLimiterNorRuleGuardsPassesWithNothingDecided() {
    Passage passage = new Passage();

    assertEquals(Verdict.PASS, flow(oneAtATime()).admit(Request.plain(), "GET", "/other", passage));

    assertNull(passage.limiter());
    assertNull(passage.outcomes());
    assertEquals(0, requests.infos);
  }

  @Test
  void aBypassedPathPassesEvenWhileStopping() {
    PathLimiter work = limiter(LimiterConfig.custom("all").path("/*").maxConcurrency(1));
    AdmissionFlow<Request> flow = flow(work);
    flow.stopAdmitting();

    assertEquals(Verdict.PASS, flow.admit(Request.plain(), "GET", "/health", new Passage()));
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void whileStoppingAnHttpDoorRefusesEveryRequestGuardedOrNot() {
    AdmissionFlow<Request> flow = flow(oneAtATime());
    flow.stopAdmitting();

    assertTrue(flow.isStopping());
    assertEquals(
        Verdict.SHUTTING_DOWN, flow.admit(Request.plain(), "GET", "/api/x", new Passage()));
    assertEquals(
        Verdict.SHUTTING_DOWN, flow.admit(Request.plain(), "GET", "/other", new Passage()));
  }

  @Test
  void whileStoppingADoorOfGuardedCallsLetsTheOthersBy() {
    AdmissionFlow<Request> flow = flow(oneAtATime(), onePerMinute(), Stopping.REFUSES_GUARDED);
    flow.stopAdmitting();

    assertEquals(
        Verdict.SHUTTING_DOWN, flow.admit(Request.plain(), "GET", "/api/x", new Passage()));
    assertEquals(
        Verdict.SHUTTING_DOWN, flow.admit(Request.plain(), "GET", "/open/x", new Passage()));
    assertEquals(Verdict.PASS, flow.admit(Request.plain(), "GET", "/other", new Passage()));
  }

  @Test
  void aRequestARuleRefusesNeverTakesAPermit() {
    PathLimiter work = oneAtATime();
    AdmissionFlow<Request> flow = flow(work, onePerMinute(), Stopping.REFUSES_EVERY_REQUEST);
    Passage first = new Passage();
    assertEquals(Verdict.ADMITTED, flow.admit(Request.plain(), "GET", "/api/x", first));
    first.permit().release();

    Passage second = new Passage();
    assertEquals(Verdict.RATE_LIMITED, flow.admit(Request.plain(), "GET", "/api/x", second));

    assertFalse(second.outcomes().allowed());
    assertEquals(
        "api",
        second.outcomes().decision(second.outcomes().rejectedIndex()).rule().id());
    assertNull(second.permit());
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void aRuledPathNoLimiterGuardsPassesWithTheRulesDecisions() {
    AdmissionFlow<Request> flow =
        flow(oneAtATime(), onePerMinute(), Stopping.REFUSES_EVERY_REQUEST);
    Passage passage = new Passage();

    assertEquals(Verdict.PASS, flow.admit(Request.plain(), "GET", "/open/x", passage));

    assertNotNull(passage.outcomes());
    assertTrue(passage.outcomes().allowed());
    assertNull(passage.limiter());
  }

  @Test
  void brokenRulesLetTheRequestOnAndTellTheDoor() {
    RateRules broken = RateRules.builder()
        .rules(RuleSet.of(List.of(Rule.builder()
            .resource("/api/*")
            .actor("header:x-broken")
            .limit(1, Duration.ofMinutes(1))
            .build())))
        .clock(time)
        .build();
    AdmissionFlow<Request> flow = flow(oneAtATime(), broken, Stopping.REFUSES_EVERY_REQUEST);
    Passage passage = new Passage();

    assertEquals(Verdict.ADMITTED, flow.admit(Request.plain(), "GET", "/api/x", passage));

    assertNull(passage.outcomes());
    assertEquals(1, requests.ruleFailures.size());
  }

  @Test
  void aSpentDeadlineIsRefusedEvenWithAPermitFree() {
    PathLimiter work = oneAtATime();
    Passage passage = new Passage();

    assertEquals(
        Verdict.DEADLINE_SPENT,
        flow(work).admit(Request.withBudget(Duration.ZERO), "GET", "/api/x", passage));

    assertSame(work, passage.limiter());
    assertEquals(0, work.limiter().snapshot().inFlight());
  }

  @Test
  void aBusyLimiterQueuesTheRequestUntilAPermitComesBack() {
    PathLimiter work = oneAtATime();
    AdmissionFlow<Request> flow = flow(work);
    Passage running = new Passage();
    flow.admit(Request.plain(), "GET", "/api/a", running);
    Passage queued = new Passage();

    assertEquals(Verdict.WAITING, flow.admit(Request.plain(), "GET", "/api/b", queued));
    CompletableFuture<Permit> waiting = queued.waiting();
    assertFalse(waiting.isDone());

    running.permit().release();
    assertNotNull(waiting.join());
  }

  @Test
  void aFullQueueRefusesAtOnceWithTheCallerWhoAsked() {
    AdmissionFlow<Request> flow = flow(oneAtATime());
    flow.admit(Request.plain(), "GET", "/api/a", new Passage());
    flow.admit(Request.plain(), "GET", "/api/b", new Passage());
    Passage refused = new Passage();

    assertEquals(Verdict.REFUSED, flow.admit(Request.plain(), "GET", "/api/c", refused));

    ConcurrencyRejectedException e =
        assertInstanceOf(ConcurrencyRejectedException.class, Answers.unwrap(refused.failure()));
    assertEquals(Outcome.QUEUE_FULL, e.outcome());
    assertNotNull(refused.caller());
  }

  @Test
  void aBudgetShorterThanTheQueueTimeoutBindsTheWait() {
    AdmissionFlow<Request> flow = flow(oneAtATime());
    flow.admit(Request.plain(), "GET", "/api/a", new Passage());
    Passage queued = new Passage();

    assertEquals(
        Verdict.WAITING,
        flow.admit(Request.withBudget(Duration.ofMillis(200)), "GET", "/api/b", queued));
    assertTrue(queued.deadlineBinds());

    time.advance(Duration.ofMillis(199));
    assertFalse(queued.waiting().isDone());
    time.advance(Duration.ofMillis(1));
    CompletionException failed =
        assertThrows(CompletionException.class, () -> queued.waiting().join());
    assertEquals(
        Outcome.QUEUE_TIMEOUT, ((ConcurrencyRejectedException) failed.getCause()).outcome());
  }

  @Test
  void aBudgetLongerThanTheQueueTimeoutDoesNotBind() {
    AdmissionFlow<Request> flow = flow(oneAtATime());
    flow.admit(Request.plain(), "GET", "/api/a", new Passage());
    Passage queued = new Passage();

    flow.admit(Request.withBudget(Duration.ofSeconds(5)), "GET", "/api/b", queued);

    assertFalse(queued.deadlineBinds());
  }

  @Test
  void whoTheRequestIsIsAskedOnceForTheRulesAndTheQueue() {
    PathLimiter fair = limiter(LimiterConfig.custom("fair")
        .path("/api/*")
        .maxConcurrency(1)
        .maxQueue(4)
        .parse(LimiterKeys.QUEUE, "fair", "test")
        .parse(LimiterKeys.QUEUE_KEY, "header:x-tenant", "test"));
    RateRules generous = RateRules.builder()
        .rules(RuleSet.of(List.of(
            Rule.builder().resource("/api/*").limit(100, Duration.ofMinutes(1)).build())))
        .clock(time)
        .build();
    AdmissionFlow<Request> flow = flow(fair, generous, Stopping.REFUSES_EVERY_REQUEST);
    flow.admit(Request.from("a"), "GET", "/api/a", new Passage());
    requests.infos = 0;
    Passage queued = new Passage();

    assertEquals(Verdict.WAITING, flow.admit(Request.from("b"), "GET", "/api/b", queued));

    assertEquals(1, requests.infos);
    assertEquals("b", queued.caller().key());
  }

  @Test
  void aReusedPassageForgetsThePreviousRequest() {
    AdmissionFlow<Request> flow =
        flow(oneAtATime(), onePerMinute(), Stopping.REFUSES_EVERY_REQUEST);
    Passage passage = new Passage();
    assertEquals(Verdict.ADMITTED, flow.admit(Request.plain(), "GET", "/api/a", passage));

    assertEquals(Verdict.PASS, flow.admit(Request.plain(), "GET", "/other", passage));

    assertNull(passage.permit());
    assertNull(passage.limiter());
    assertNull(passage.outcomes());
  }
}
