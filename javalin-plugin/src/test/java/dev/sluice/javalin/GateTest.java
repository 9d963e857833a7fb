package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.Answers;
import dev.sluice.http.Rejection;
import dev.sluice.time.VirtualTime;
import io.javalin.http.Context;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The gate's steps that need no server: the path the limiters see, the after-handler giving back
 * what the request holds, and the guard answering a request still parked. A stand-in context
 * answers its path, context path and attributes only, so each test reads the limiter's count and
 * the answer directly.
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
              .build()),
      time,
      time,
      Runnable::run,
      new ConcurrencyListener() {},
      Optional.empty(),
      warnings);
  private final DisconnectWatch disconnects = new DisconnectWatch(Runnable::run);
  private final Gate gate = new Gate(
      settings,
      limiters,
      null,
      Runnable::run,
      time,
      new SluiceMeterBinder(),
      new WarnOnce(warnings, "rate rules", time, 30, TimeUnit.SECONDS),
      disconnects,
      time);
  private final ConcurrencyLimiter work = limiters.byName("work").orElseThrow().limiter();
  private final Answers answers = new Answers(settings.statuses());

  @AfterEach
  void stop() {
    limiters.shutdown();
    disconnects.close();
  }

  private static Context request(String path, String contextPath) {
    return request(path, contextPath, new HashMap<>());
  }

  private static Context request(String path, String contextPath, Map<String, Object> attributes) {
    return (Context) Proxy.newProxyInstance(
        GateTest.class.getClassLoader(),
        new Class<?>[] {Context.class},
        (proxy, m, args) -> switch (m.getName()) {
          case "path" -> path;
          case "contextPath" -> contextPath;
          case "attribute" -> {
            if (args.length == 2) {
              attributes.put((String) args[0], args[1]);
              yield null;
            }
            yield attributes.get((String) args[0]);
          }
          case "toString" -> "a request for " + path;
          default -> throw new UnsupportedOperationException(m.getName());
        });
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
    assertThatThrownBy(() -> gate.guard(holding(parked)))
        .isInstanceOfSatisfying(Rejection.class, r -> {
          assertThat(r.reason).isEqualTo(timedOut.reason);
          assertThat(r.status).isEqualTo(timedOut.status);
        });

    parked.clientGone();
    Rejection gone = answers.clientGone();
    assertThat(gone.status).isNotEqualTo(timedOut.status);
    assertThatThrownBy(() -> gate.guard(holding(parked)))
        .isInstanceOfSatisfying(Rejection.class, r -> {
          assertThat(r.reason).isEqualTo(gone.reason);
          assertThat(r.status).isEqualTo(gone.status);
        });
  }
}
