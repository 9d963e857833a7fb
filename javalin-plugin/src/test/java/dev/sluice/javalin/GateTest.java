package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.Answers;
import dev.sluice.http.HttpAnswer;
import dev.sluice.http.Rejection;
import dev.sluice.rate.Algorithm;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.VirtualTime;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The gate's steps without a server: the path the limiters see, the after-handler giving back what
 * the request holds, the guard answering a request still parked, and a request that must wait
 * (parked, granted, timed out, cancelled by its async timeout or its client, held by a shaper
 * rule). A stand-in context answers its path, method, attributes and suspension, and a stand-in
 * servlet request its async listeners, so each test reads the limiter's count and the answer
 * directly and a broken wait fails at once instead of hanging a server test.
 */
class GateTest {

  private final VirtualTime time = new VirtualTime();
  private final Settings settings =
      Settings.resolve(SluiceProperties.builder().env(Map.of()).system(Map.of()).build(), Map.of());
  private final Warnings warnings = Warnings.to(LoggerFactory.getLogger(GateTest.class));
  private final Limiters limiters = Limiters.build(
      Map.of(
          "work",
          LimiterConfig.custom("work")
              .set(LimiterKeys.MAX_CONCURRENCY, 2)
              .set(LimiterKeys.PATH, "/api/work")
              .set(LimiterKeys.MAX_QUEUE, 4)
              .set(LimiterKeys.QUEUE_TIMEOUT, Duration.ofSeconds(5))
              .build(),
          "learn",
          LimiterConfig.custom("learn")
              .set(LimiterKeys.MAX_CONCURRENCY, 8)
              .set(LimiterKeys.PATH, "/api/learn/*")
              .set(LimiterKeys.COST, "learned")
              .build()),
      time,
      time,
      Runnable::run,
      new ConcurrencyListener() {},
      Optional.empty(),
      warnings);
  private final DisconnectWatch disconnects = new DisconnectWatch(Runnable::run);
  private final Gate gate = gate(null, Runnable::run);
  private final ConcurrencyLimiter work = limiters.byName("work").orElseThrow().limiter();
  private final ConcurrencyLimiter learn =
      limiters.byName("learn").orElseThrow().limiter();
  private final Answers answers = new Answers(settings.statuses());

  private Gate gate(RateRules rules, Executor executor) {
    return gate(settings, rules, executor);
  }

  private Gate gate(Settings settings, RateRules rules, Executor executor) {
    return new Gate(
        settings,
        limiters,
        rules,
        executor,
        time,
        new SluiceMeterBinder(),
        new WarnOnce(warnings, "rate rules", time, 30, TimeUnit.SECONDS),
        disconnects,
        time);
  }

  @AfterEach
  void stop() {
    limiters.shutdown();
    disconnects.close();
  }

  private static Context request(String path, String contextPath) {
    return request(path, contextPath, new HashMap<>());
  }

  private static Context request(String path, String contextPath, Map<String, Object> attributes) {
    return StandInContext.of(path, contextPath, attributes, StandInContext.More.NOTHING);
  }

  private static Context holding(Object held) {
    Map<String, Object> attributes = new HashMap<>();
    attributes.put(Admission.ATTRIBUTE, held);
    return request("/api/work", "", attributes);
  }

  @Test
  void theContextPathIsCutOffAndWhatIsLeftIsNeverEmpty() {
    assertThat(Gate.path(request("/app/api/work", "/app"))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/app", "/app"))).as("the application's root").isEqualTo("/");
  }

  @Test
  void withoutAContextPathThePathStaysAsItIs() {
    assertThat(Gate.path(request("/api/work", null))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/api/work", ""))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/api/work", "/"))).isEqualTo("/api/work");
    assertThat(Gate.path(request("", null))).isEqualTo("/");
    assertThat(Gate.path(request("", "/"))).isEqualTo("/");
  }

  @Test
  void aPathOutsideTheContextPathIsNotCut() {
    assertThat(Gate.path(request("/other/api", "/app"))).isEqualTo("/other/api");
  }

  @Test
  void theAfterHandlerGivesBackAPermitGrantedAtOnce() {
    Permit permit = work.acquire().join();
    assertThat(work.snapshot().inFlight()).isEqualTo(1);

    gate.after(holding(permit));

    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void theAfterHandlerGivesBackEveryPermitOfTheRequestsRecord() {
    Admission admission = new Admission();
    admission.hold("work", work.acquire().join());
    admission.hold("other", work.acquire().join());
    assertThat(work.snapshot().inFlight()).isEqualTo(2);

    gate.after(holding(admission));

    assertThat(work.snapshot().inFlight()).isZero();
    assertThat(admission.isClosed()).isTrue();
  }

  @Test
  void theAfterHandlerOfARequestHoldingNothingDoesNothing() {
    Context ctx = request("/api/work", "");
    gate.after(ctx);
    assertThat(ctx.<Object>attribute(Admission.ATTRIBUTE)).isNull();
    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void theGuardLetsThroughARequestThatHoldsItsPermit() {
    Admission admission = new Admission();
    admission.hold("work", work.acquire().join());
    gate.guard(holding(admission));
    gate.guard(holding(work.acquire().join()));
    gate.guard(request("/api/work", ""));
    assertThat(work.snapshot().inFlight()).isEqualTo(2);
  }

  @Test
  void theGuardAnswersAParkedRequestAsTimedOutOrAsGoneWhenItsClientLeft() {
    Admission parked = new Admission();
    parked.park(new CompletableFuture<>());
    Rejection timedOut = answers.parkedTooLong();
    assertAnswered(timedOut, catchThrowable(() -> gate.guard(holding(parked))));

    parked.clientGone();
    Rejection gone = answers.clientGone();
    assertThat(gone.status).isNotEqualTo(timedOut.status);
    assertAnswered(gone, catchThrowable(() -> gate.guard(holding(parked))));
  }

  /**
   * A stand-in request that can be suspended: it keeps what Javalin's {@code ctx.future} was given
   * and the async listeners registered on its servlet request.
   */
  private static final class Suspendable {
    final Map<String, Object> attributes = new HashMap<>();
    final List<AsyncListener> listeners = new ArrayList<>();
    final List<String> headers = new ArrayList<>();
    Supplier<? extends CompletableFuture<?>> suspended;
    final Context ctx;

    Suspendable(String path) {
      AsyncContext async = (AsyncContext) Proxy.newProxyInstance(
          GateTest.class.getClassLoader(),
          new Class<?>[] {AsyncContext.class},
          (proxy, m, args) -> {
            if (m.getName().equals("addListener")) {
              listeners.add((AsyncListener) args[0]);
              return null;
            }
            throw new UnsupportedOperationException(m.getName());
          });
      HttpServletRequest req = (HttpServletRequest) Proxy.newProxyInstance(
          GateTest.class.getClassLoader(),
          new Class<?>[] {HttpServletRequest.class},
          (proxy, m, args) -> switch (m.getName()) {
            case "isAsyncStarted" -> suspended != null;
            case "getAsyncContext" -> async;
            case "toString" -> "a servlet request for " + path;
            default -> throw new UnsupportedOperationException(m.getName());
          });
      HttpServletResponse res = (HttpServletResponse) Proxy.newProxyInstance(
          GateTest.class.getClassLoader(),
          new Class<?>[] {HttpServletResponse.class},
          (proxy, m, args) -> {
            if (m.getName().equals("addHeader")) {
              headers.add(args[0] + ": " + args[1]);
              return null;
            }
            throw new UnsupportedOperationException(m.getName());
          });
      ctx = StandInContext.of(path, "", attributes, (method, args) -> switch (method) {
        case "method" -> HandlerType.GET;
        case "header", "queryParam" -> null;
        case "req" -> req;
        case "res" -> res;
        case "future" -> {
          @SuppressWarnings("unchecked")
          Supplier<? extends CompletableFuture<?>> later =
              (Supplier<? extends CompletableFuture<?>>) args[0];
          suspended = later;
          yield null;
        }
        default -> throw new UnsupportedOperationException(method);
      });
    }

    /** What Javalin does once the handler returns: suspends the request, then waits on this. */
    CompletableFuture<?> suspend() {
      assertThat(suspended).as("the request was suspended").isNotNull();
      return suspended.get();
    }

    Admission admission() {
      return (Admission) attributes.get(Admission.ATTRIBUTE);
    }
  }

  private static void assertAnswered(Rejection expected, Throwable thrown) {
    assertThat(thrown).isInstanceOfSatisfying(Rejection.class, r -> {
      assertThat(r.reason).isEqualTo(expected.reason);
      assertThat(r.status).isEqualTo(expected.status);
    });
  }

  private static Throwable failureOf(CompletableFuture<?> done) {
    assertThat(done).isCompletedExceptionally();
    return Answers.unwrap(done.handle((v, t) -> t).join());
  }

  @Test
  void aRequestThatMustWaitIsParkedAndGoesOnWithItsPermitWhenOneIsFreed() {
    Permit first = work.acquire().join();
    work.acquire().join();
    Suspendable waiting = new Suspendable("/api/work");

    gate.before(waiting.ctx);
    assertThat(waiting.admission().isParked()).isTrue();
    CompletableFuture<?> resumed = waiting.suspend();
    assertThat(resumed).isNotDone();
    assertThat(waiting.listeners).as("watched through its async context").hasSize(1);
    assertAnswered(answers.parkedTooLong(), catchThrowable(() -> gate.guard(waiting.ctx)));

    first.release();

    assertThat(resumed).isCompleted();
    assertThat(resumed.join()).isNull();
    assertThat(waiting.admission().isParked()).isFalse();
    assertThat(waiting.admission().holds("work")).isTrue();
    assertThat(work.snapshot().inFlight()).isEqualTo(2);
    gate.guard(waiting.ctx);
    gate.after(waiting.ctx);
    assertThat(work.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void aPermitGrantedBeforeTheRequestIsSuspendedNeedsNoWatch() {
    Permit first = work.acquire().join();
    work.acquire().join();
    Suspendable waiting = new Suspendable("/api/work");
    gate.before(waiting.ctx);

    first.release(); // granted on this thread before Javalin suspends the request

    CompletableFuture<?> resumed = waiting.suspend();
    assertThat(resumed).isCompleted();
    assertThat(waiting.listeners).isEmpty();
    assertThat(waiting.admission().holds("work")).isTrue();
    gate.after(waiting.ctx);
    assertThat(work.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void anAsyncTimeoutWhileParkedLeavesTheQueueAndIsAnsweredAsAQueueTimeout() throws Exception {
    Permit first = work.acquire().join();
    work.acquire().join();
    Suspendable waiting = new Suspendable("/api/work");
    gate.before(waiting.ctx);
    CompletableFuture<?> resumed = waiting.suspend();
    assertThat(work.snapshot().queued()).isEqualTo(1);

    waiting.listeners.get(0).onTimeout(null);

    assertThat(work.snapshot().queued()).isZero();
    assertThat(resumed).as("resumed for the guard to answer").isCompleted();
    assertThat(resumed.join()).isNull();
    assertAnswered(answers.parkedTooLong(), catchThrowable(() -> gate.guard(waiting.ctx)));
    first.release();
    assertThat(work.snapshot().inFlight())
        .as("the cancelled waiter took nothing")
        .isEqualTo(1);
  }

  @Test
  void aClientThatLeavesWhileParkedIsAnsweredAsGoneByEitherEndOfItsRequest() throws Exception {
    work.acquire().join();
    work.acquire().join();
    for (int i = 0; i < 2; i++) {
      Suspendable waiting = new Suspendable("/api/work");
      gate.before(waiting.ctx);
      CompletableFuture<?> resumed = waiting.suspend();
      if (i == 0) {
        waiting.listeners.get(0).onComplete(null);
      } else {
        waiting.listeners.get(0).onError(null);
      }
      assertThat(resumed).isCompleted();
      assertThat(waiting.admission().isClientGone()).isTrue();
      assertAnswered(answers.clientGone(), catchThrowable(() -> gate.guard(waiting.ctx)));
    }
    assertThat(work.snapshot().queued()).isZero();
  }

  @Test
  void aWaiterThatTimesOutInTheQueueIsAnsweredWithTheLimitersRefusal() {
    work.acquire().join();
    work.acquire().join();
    Suspendable waiting = new Suspendable("/api/work");
    gate.before(waiting.ctx);
    CompletableFuture<?> resumed = waiting.suspend();

    time.advance(Duration.ofSeconds(5));

    Throwable answer = failureOf(resumed);
    assertThat(answer).isInstanceOfSatisfying(Rejection.class, r -> {
      assertThat(r.reason).isEqualTo(Rejection.Reason.QUEUE_TIMEOUT);
      assertThat(r.status).isEqualTo(answers.parkedTooLong().status);
    });
    assertThat(work.snapshot().queued()).isZero();
  }

  @Test
  void aWrappedEndpointRunsOnceItsWaitingRequestHoldsThePermit() throws Exception {
    Permit first = work.acquire().join();
    work.acquire().join();
    AtomicInteger ran = new AtomicInteger();
    Suspendable waiting = new Suspendable("/api/other");

    gate.limited("work", ctx -> ran.incrementAndGet(), waiting.ctx);
    CompletableFuture<?> resumed = waiting.suspend();
    assertThat(ran).hasValue(0);

    first.release();

    assertThat(resumed).isCompleted();
    assertThat(ran).hasValue(1);
    assertThat(waiting.admission().holds("work")).isTrue();
    gate.limited("work", ctx -> ran.incrementAndGet(), waiting.ctx);
    assertThat(ran).as("a request holding the permit goes straight in").hasValue(2);
    gate.after(waiting.ctx);
    assertThat(work.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void aWrappedEndpointWhoseRequestEndedWhileParkedNeverRuns() throws Exception {
    work.acquire().join();
    work.acquire().join();
    AtomicInteger ran = new AtomicInteger();
    Suspendable waiting = new Suspendable("/api/other");
    gate.limited("work", ctx -> ran.incrementAndGet(), waiting.ctx);
    CompletableFuture<?> resumed = waiting.suspend();

    waiting.listeners.get(0).onTimeout(null);

    assertAnswered(answers.parkedTooLong(), failureOf(resumed));
    assertThat(ran).hasValue(0);
  }

  @Test
  void aWrappedEndpointThatFailsFailsItsRequest() throws Exception {
    Permit first = work.acquire().join();
    work.acquire().join();
    Suspendable waiting = new Suspendable("/api/other");
    gate.limited(
        "work",
        ctx -> {
          throw new IOException("the endpoint failed");
        },
        waiting.ctx);
    CompletableFuture<?> resumed = waiting.suspend();

    first.release();

    assertThat(failureOf(resumed)).hasMessage("the endpoint failed");
  }

  @Test
  void anUnknownLimiterNameIsAnError() {
    assertThatThrownBy(() -> gate.limited("nope", ctx -> {}, new Suspendable("/x").ctx))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'nope'");
  }

  private RateRules shaper() {
    return shaper("/api/work");
  }

  private RateRules shaper(String path) {
    Rule rule = Rule.builder()
        .id("shaped")
        .resource(path)
        .actor("all")
        .limit(1, Duration.ofSeconds(1))
        .burst(3)
        .algorithm(Algorithm.LEAKY_BUCKET_SHAPER)
        .build();
    return RateRules.builder().rules(RuleSet.of(List.of(rule))).clock(time).build();
  }

  private void aShapedRequestIsHeldForItsTurnThenTakesItsPermit(Gate shaping) {
    Suspendable first = new Suspendable("/api/work");
    shaping.before(first.ctx);
    assertThat(first.suspended).as("the first goes at once").isNull();
    assertThat(first.headers).as("the rule's policy on its answer").isNotEmpty();
    assertThat(work.snapshot().inFlight()).isEqualTo(1);

    Suspendable second = new Suspendable("/api/work");
    shaping.before(second.ctx);
    CompletableFuture<?> resumed = second.suspend();
    assertThat(resumed).isNotDone();
    assertThat(work.snapshot().inFlight())
        .as("held by the rule, not by the limiter")
        .isEqualTo(1);

    time.advance(Duration.ofSeconds(1));

    assertThat(resumed).isCompleted();
    assertThat(second.admission().holds("work")).isTrue();
    assertThat(work.snapshot().inFlight()).isEqualTo(2);
    shaping.after(second.ctx);
    shaping.after(first.ctx);
    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void aShapedRequestIsHeldForItsTurnThenTakesItsPermit() {
    aShapedRequestIsHeldForItsTurnThenTakesItsPermit(gate(shaper(), Runnable::run));
  }

  @Test
  void aShapedRequestStillGoesOnWhenTheExecutorIsStopping() {
    aShapedRequestIsHeldForItsTurnThenTakesItsPermit(gate(shaper(), task -> {
      throw new RejectedExecutionException("stopping");
    }));
  }

  @Test
  void aShapedRequestOnAPathWithoutALimiterGoesOnAtItsTurn() {
    Gate shaping = gate(shaper("/api/free"), Runnable::run);
    Suspendable first = new Suspendable("/api/free");
    shaping.before(first.ctx);
    assertThat(first.suspended).isNull();
    Suspendable second = new Suspendable("/api/free");
    shaping.before(second.ctx);
    CompletableFuture<?> resumed = second.suspend();
    assertThat(resumed).isNotDone();

    time.advance(Duration.ofMillis(999));
    assertThat(resumed).as("not before its turn").isNotDone();
    time.advance(Duration.ofMillis(1));

    assertThat(resumed).isCompleted();
    assertThat(second.admission()).as("no limiter, no permit").isNull();
    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void aWrappedEndpointWithAFreePermitRunsAtOnce() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    Suspendable request = new Suspendable("/api/other");

    gate.limited("work", ctx -> ran.incrementAndGet(), request.ctx);

    assertThat(ran).hasValue(1);
    assertThat(request.suspended).isNull();
    assertThat(request.admission().holds("work")).isTrue();
    assertThat(work.snapshot().inFlight()).isEqualTo(1);
    gate.after(request.ctx);
    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void aStoppingGateAnswersNewRequestsAsShuttingDown() {
    Rejection stopping = answers.shuttingDown();
    gate.stopAdmitting();

    Suspendable request = new Suspendable("/api/work");
    assertAnswered(stopping, catchThrowable(() -> gate.before(request.ctx)));
    AtomicInteger ran = new AtomicInteger();
    assertThatThrownBy(() -> gate.limited("work", ctx -> ran.incrementAndGet(), request.ctx))
        .isInstanceOfSatisfying(
            Rejection.class, r -> assertThat(r.reason).isEqualTo(stopping.reason));
    assertThat(ran).hasValue(0);
    assertThat(work.snapshot().inFlight()).isZero();
  }

  @Test
  void withConcurrencyHeadersAGrantAndAFullQueuesRefusalCarryTheLimitersPolicy() {
    Settings withHeaders = Settings.resolve(
        SluiceProperties.builder()
            .env(Map.of())
            .system(Map.of("sluice.headers.concurrency", "true"))
            .build(),
        Map.of());
    Gate telling = gate(withHeaders, null, Runnable::run);
    RateHeaders expected = new RateHeaders(true, false);
    Suspendable granted = new Suspendable("/api/work");
    telling.before(granted.ctx);
    assertThat(granted.headers)
        .as("a limit of two, one permit free")
        .contains(RateHeaders.RATELIMIT + ": " + expected.limiterItems("work", 2, 1)[1]);
    Suspendable plain = new Suspendable("/api/work");
    gate.before(plain.ctx);
    assertThat(plain.headers).as("off by default").isEmpty();
    List<Suspendable> queued = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      queued.add(new Suspendable("/api/work"));
      telling.before(queued.get(i).ctx); // fills the queue of four
    }

    Rejection full =
        (Rejection) catchThrowable(() -> telling.before(new Suspendable("/api/work").ctx));

    assertThat(full.reason).isEqualTo(Rejection.Reason.QUEUE_FULL);
    List<String> written = new ArrayList<>();
    Answers.write(full, new HttpAnswer() {
      @Override
      public void status(int status) {}

      @Override
      public void setHeader(String name, String value) {}

      @Override
      public void addHeader(String name, String value) {
        written.add(name + ": " + value);
      }

      @Override
      public void removeHeader(String name) {}

      @Override
      public void body(String contentType, String body) {}
    });
    assertThat(written)
        .as("none free")
        .contains(RateHeaders.RATELIMIT + ": " + expected.limiterItems("work", 2, 0)[1]);

    Suspendable next = queued.get(0);
    CompletableFuture<?> resumed = next.suspend();
    gate.after(plain.ctx);
    assertThat(resumed).isCompleted();
    assertThat(next.headers)
        .as("a waiter granted later")
        .contains(RateHeaders.RATELIMIT + ": " + expected.limiterItems("work", 2, 0)[1]);
  }

  @Test
  void aLearnedCostIsTaughtTheServiceTimeFromTheGrantNotFromTheArrival() {
    List<Permit> full = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      full.add(learn.acquire().join());
    }
    Suspendable waited = new Suspendable("/api/learn/x");
    gate.before(waited.ctx);
    CompletableFuture<?> resumed = waited.suspend();
    time.advance(Duration.ofMillis(100)); // waits 100 ms in the queue
    full.remove(0).release();
    assertThat(resumed).isCompleted();
    time.advance(Duration.ofMillis(10)); // then is served in 10 ms
    gate.after(waited.ctx);
    full.forEach(Permit::release);

    Suspendable slow = new Suspendable("/api/learn/y");
    gate.before(slow.ctx);
    time.advance(Duration.ofMillis(40)); // served in 40 ms at once
    gate.after(slow.ctx);
    assertThat(learn.snapshot().inFlight()).isZero();

    // the typical time is 10 ms, then 13 (weight 0.1): /y's 40 ms cost 3 units; had the waited
    // request been timed from its arrival (110 ms) or not at all, /y would cost 1
    Suspendable next = new Suspendable("/api/learn/y");
    gate.before(next.ctx);
    assertThat(learn.snapshot().inFlight()).isEqualTo(3);
    Suspendable fast = new Suspendable("/api/learn/x");
    gate.before(fast.ctx);
    assertThat(learn.snapshot().inFlight()).as("/x costs 1").isEqualTo(4);
    gate.after(next.ctx);
    gate.after(fast.ctx);
    assertThat(learn.snapshot().inFlight()).isZero();
  }
}
