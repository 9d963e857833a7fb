package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote rules of {@link RulesReloader} on virtual time, with an HTTP client that answers at
 * once (no socket): which rules are in force as the remote answers, fails and comes back, what is
 * logged and reported, and when it is fetched. {@code RulesReloaderTest} tries the same over a real
 * HTTP server.
 */
class RemoteRulesTest {

  private static final URI REMOTE_URI = URI.create("http://rules.example/rules.yaml");
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final String LOCAL = """
      rules:
        - {id: a, resource: /a, limit: 2, unit: minute}
      """;
  private static final String REMOTE = """
      rules:
        - {id: a, resource: /a, limit: 2, unit: minute}
        - {id: r, resource: /r, limit: 1, unit: minute}
      """;
  /** Valid to the parser, refused by the engine: an actor it does not know. */
  private static final String REFUSED =
      "rules:\n  - {id: t, resource: /t, limit: 1, unit: minute, actor: 'custom:tenant'}\n";

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();
  private final RecordingLogger log = new RecordingLogger();
  private final List<RulesFileException> errors = new CopyOnWriteArrayList<>();
  private final ScriptedHttpClient http = new ScriptedHttpClient();
  private Path file;
  private RateRules engine;
  private RulesReloader reloader;

  @BeforeEach
  void setUp() throws Exception {
    file = Files.writeString(dir.resolve("ratelimits.yaml"), LOCAL);
    engine = RateRules.builder().clock(time).build();
    http.answer(200, REMOTE);
  }

  @AfterEach
  void tearDown() {
    if (reloader != null) {
      reloader.close();
    }
  }

  private RulesReloader.Builder reloader() {
    return RulesReloader.builder()
        .target(engine)
        .file(file)
        .remote(REMOTE_URI)
        .httpClient(http)
        .interval(INTERVAL)
        .scheduler(time)
        .onError(errors::add)
        .logger(log)
        .remoteTimeout(Duration.ofSeconds(3));
  }

  private List<String> ids() {
    return engine.rules().rules().stream().map(Rule::id).toList();
  }

  private void pollNow() {
    reloader.poll().toCompletableFuture().join();
  }

  private List<String> logged(String part) {
    return log.messages.stream().filter(m -> m.contains(part)).toList();
  }

  @Test
  void theRemoteRulesWinFromTheStartWhileItAnswers() throws Exception {
    reloader = reloader().build();
    reloader.start();

    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();
    HttpRequest sent = http.requests.get(0);
    assertThat(sent.method()).isEqualTo("GET");
    assertThat(sent.uri()).isEqualTo(REMOTE_URI);
    assertThat(sent.timeout()).contains(Duration.ofSeconds(3));
    assertThat(sent.headers().firstValue("Accept"))
        .hasValueSatisfying(accept -> assertThat(accept).contains("application/yaml"));
  }

  @Test
  void aRemoteDownAtStartLeavesTheFileInForceAndIsLoggedAsUnreachable() throws Exception {
    http.fail("connection refused");
    reloader = reloader().build();

    reloader.start();

    assertThat(ids()).containsExactly("a");
    assertThat(reloader.remoteInForce()).isFalse();
    assertThat(logged("unreachable"))
        .singleElement()
        .satisfies(m -> assertThat(m)
            .startsWith("WARNING remote rules " + REMOTE_URI)
            .contains("connection refused")
            .endsWith("the local rules apply"));
  }

  @Test
  void aRemoteThatStopsAnsweringHandsBackToTheFileAndWinsAgainWhenItAnswers() throws Exception {
    reloader = reloader().build();
    reloader.start();

    http.answer(503, "busy");
    pollNow();
    pollNow();
    assertThat(ids()).containsExactly("a");
    assertThat(reloader.remoteInForce()).isFalse();
    assertThat(logged("unreachable"))
        .as("the change is logged, not every poll")
        .singleElement()
        .satisfies(m -> assertThat(m).contains("status 503"));

    http.answer(200, REMOTE); // the same version as before: taken back without a new parse
    pollNow();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();
    assertThat(logged("reachable again"))
        .containsExactly(
            "INFO remote rules " + REMOTE_URI + " reachable again; they win over the file");
    pollNow();
    assertThat(logged("reachable again")).hasSize(1);
  }

  @Test
  void aNewRemoteVersionReplacesTheRulesAndALocalEditWaitsBehindIt() throws Exception {
    reloader = reloader().build();
    reloader.start();

    http.answer(200, REMOTE + "  - {id: s, resource: /s, limit: 1, unit: minute}\n");
    Files.writeString(file, LOCAL + "  - {id: l, resource: /l, limit: 1, unit: minute}\n");
    pollNow();
    assertThat(ids()).containsExactly("a", "r", "s");

    http.fail("gone");
    pollNow();
    assertThat(ids()).as("the edited file, read while the remote won").containsExactly("a", "l");
  }

  @Test
  void theRemoteIsFetchedOnItsOwnIntervalOnTheScheduler() throws Exception {
    reloader = reloader().remoteInterval(Duration.ofSeconds(20)).build();
    reloader.start();
    assertThat(http.requests).hasSize(1);

    time.advance(Duration.ofSeconds(19));
    assertThat(http.requests).hasSize(1);
    time.advance(Duration.ofSeconds(1));
    assertThat(http.requests).hasSize(2);

    http.answer(500, "");
    time.advance(Duration.ofSeconds(20));
    assertThat(ids()).containsExactly("a");
  }

  @Test
  void withoutItsOwnIntervalTheRemoteIsFetchedAsOftenAsTheFileIsChecked() throws Exception {
    reloader = reloader().build();
    reloader.start();

    time.advance(INTERVAL.multipliedBy(3));

    assertThat(http.requests).hasSize(4);
  }

  @Test
  void anInvalidRemoteVersionKeepsTheRulesInForceAndIsReportedOnce() throws Exception {
    reloader = reloader().build();
    reloader.start();

    http.answer(200, "rules:\n  - {id: a, resource: /a, limit: 2, unit: minute, scope: x}\n");
    pollNow();
    pollNow();

    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();
    assertThat(errors).singleElement().satisfies(e -> {
      assertThat(e.source()).isEqualTo(REMOTE_URI.toString());
      assertThat(e.field()).isEqualTo("rules[0].scope");
    });
  }

  @Test
  void aRemoteVersionTheEngineRefusesIsForgottenSoTheOneBeforeItStaysInForce() throws Exception {
    reloader = reloader().build();
    reloader.start();

    http.answer(200, REFUSED);
    pollNow();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(errors)
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("custom:tenant"));

    // down, then back with the refused version still: the last good remote version wins again
    http.fail("gone");
    pollNow();
    http.answer(200, REFUSED);
    pollNow();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();
    assertThat(errors).hasSize(1);
  }

  @Test
  void withoutAnErrorHandlerABadRemoteVersionIsLoggedOnce() throws Exception {
    reloader = RulesReloader.builder()
        .target(engine)
        .file(file)
        .remote(REMOTE_URI)
        .httpClient(http)
        .scheduler(time)
        .logger(log)
        .build();
    reloader.start();

    http.answer(200, "rules: [");
    pollNow();
    pollNow();

    assertThat(logged("rules not reloaded"))
        .singleElement()
        .satisfies(m -> assertThat(m)
            .startsWith("ERROR rules not reloaded, the rules in force stay: " + REMOTE_URI));
  }

  @Test
  void aRemoteOnlyReloaderNeedsNoFileAndPollsTheRemoteAlone() throws Exception {
    reloader = RulesReloader.builder()
        .target(engine)
        .remote(REMOTE_URI)
        .httpClient(http)
        .scheduler(time)
        .logger(log)
        .build();
    reloader.start();
    assertThat(ids()).containsExactly("a", "r");

    http.answer(200, LOCAL);
    pollNow();

    assertThat(ids()).containsExactly("a");
    assertThat(http.requests).hasSize(2);
  }

  @Test
  void aFileOnlyReloaderFetchesNothing() throws Exception {
    reloader = RulesReloader.builder().target(engine).file(file).scheduler(time).build();
    reloader.start();

    assertThat(reloader.poll().toCompletableFuture().join()).isNull();
    time.advance(INTERVAL.multipliedBy(3));

    assertThat(http.requests).isEmpty();
    assertThat(reloader.remoteInForce()).isFalse();
  }

  @Test
  void closingStopsBothPollsAndAnswersArrivingAfterwardsChangeNothing() throws Exception {
    reloader = reloader().build();
    reloader.start();
    reloader.close();
    assertThat(time.pendingTasks()).isZero();

    http.answer(503, "");
    pollNow(); // a fetch already on its way when close() ran
    http.answer(200, LOCAL);
    pollNow();

    assertThat(ids()).containsExactly("a", "r");
    assertThat(logged("unreachable")).isEmpty();
  }

  @Test
  void aReloaderClosedBeforeItStartsLoadsTheFileButSchedulesNothing() throws Exception {
    reloader = reloader().build();
    reloader.close();

    reloader.start();

    // the file is loaded (its errors stop start-up); the remote's answer finds it closed
    assertThat(ids()).containsExactly("a");
    assertThat(http.requests).hasSize(1);
    assertThat(time.pendingTasks()).isZero();
  }
}
