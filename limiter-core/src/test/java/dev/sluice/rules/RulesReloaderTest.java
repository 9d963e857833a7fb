package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.time.VirtualTime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesReloaderTest {

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

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();
  private final RecordingLogger log = new RecordingLogger();
  private final List<RulesFileException> errors = new CopyOnWriteArrayList<>();
  private Path file;
  private RateRules engine;
  private HttpServer server;
  private final AtomicReference<String> served = new AtomicReference<>(REMOTE);
  private final AtomicInteger status = new AtomicInteger(200);
  private RulesReloader reloader;

  @BeforeEach
  void setUp() throws Exception {
    file = dir.resolve("ratelimits.yaml");
    write(LOCAL);
    engine = RateRules.builder().clock(time).build();
  }

  @AfterEach
  void tearDown() {
    if (reloader != null) {
      reloader.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  private int writes;

  /** Writes the file with a new modification time, as an editor would. */
  private void write(String text) throws Exception {
    Files.writeString(file, text);
    Files.setLastModifiedTime(
        file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(++writes)));
  }

  private RulesReloader.Builder reloader() {
    return RulesReloader.builder()
        .target(engine)
        .file(file)
        .interval(INTERVAL)
        .scheduler(time)
        .onError(errors::add)
        .logger(log)
        .remoteTimeout(Duration.ofSeconds(2));
  }

  private URI serve() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/rules.yaml", exchange -> {
      byte[] body = served.get().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status.get(), body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/rules.yaml");
  }

  private boolean allowed(String path) {
    return engine
        .check(TestRequest.of("GET", path))
        .toCompletableFuture()
        .join()
        .allowed();
  }

  private List<String> ids() {
    return engine.rules().rules().stream().map(Rule::id).toList();
  }

  private void pollNow() throws Exception {
    reloader.poll().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void startLoadsTheFile() throws Exception {
    reloader = reloader().build();
    reloader.start();
    assertThat(ids()).containsExactly("a");
    assertThat(reloader.remoteInForce()).isFalse();
  }

  @Test
  void badFileStopsStartUpNamingFileLineAndField() throws Exception {
    write("rules:\n  - {resource: /a, limit: 2, unit: fortnight}\n");
    reloader = reloader().build();
    assertThatThrownBy(reloader::start)
        .isInstanceOf(RulesFileException.class)
        .hasMessageContaining("ratelimits.yaml:2: rules[0].unit");
    assertThat(engine.rules().rules()).isEmpty();
  }

  @Test
  void changedFileIsAppliedOnTheNextPollKeepingTheCountsOfUnchangedRules() throws Exception {
    reloader = reloader().build();
    reloader.start();
    assertThat(allowed("/a")).isTrue();
    assertThat(allowed("/a")).isTrue();
    write(LOCAL + "  - {id: b, resource: /b, limit: 1, unit: minute}\n");
    time.advance(INTERVAL.minusMillis(1));
    assertThat(ids()).containsExactly("a");
    time.advance(Duration.ofMillis(1));
    assertThat(ids()).containsExactly("a", "b");
    assertThat(allowed("/a")).as("rule a kept its counts").isFalse();
    assertThat(allowed("/b")).isTrue();
  }

  @Test
  void sameContentWithANewTimestampReplacesNothing() throws Exception {
    reloader = reloader().build();
    reloader.start();
    RuleSet before = engine.rules();
    write(LOCAL);
    time.advance(INTERVAL);
    assertThat(engine.rules()).isSameAs(before);
  }

  @Test
  void withoutAHandlerAnInvalidNewFileIsLoggedOncePerVersion() throws Exception {
    reloader = RulesReloader.builder()
        .target(engine)
        .file(file)
        .interval(INTERVAL)
        .scheduler(time)
        .logger(log)
        .build();
    reloader.start();
    write("rules:\n  - {resource: /a, limit: 2, unit: minute, algorithm: magic}\n");
    time.advance(INTERVAL.multipliedBy(4));

    assertThat(ids()).containsExactly("a");
    assertThat(log.messages)
        .filteredOn(m -> m.startsWith("ERROR"))
        .singleElement()
        .satisfies(m -> assertThat(m).contains("ratelimits.yaml:2: rules[0].algorithm"));
  }

  @Test
  void invalidNewFileKeepsTheOldRulesAndIsReportedOncePerVersion() throws Exception {
    reloader = reloader().build();
    reloader.start();
    write("rules:\n  - {resource: /a, limit: 2, unit: minute, algorithm: magic}\n");
    time.advance(INTERVAL.multipliedBy(4));
    assertThat(ids()).containsExactly("a");
    assertThat(errors).singleElement().satisfies(e -> {
      assertThat(e.line()).isEqualTo(2);
      assertThat(e.field()).isEqualTo("rules[0].algorithm");
      assertThat(e.source()).endsWith("ratelimits.yaml");
    });
    // the handler reports it: not logged a second time, in another format
    assertThat(log.messages).noneMatch(m -> m.startsWith("ERROR"));

    write("rules:\n  - {resource: /a, limit: 0, unit: minute}\n");
    time.advance(INTERVAL.multipliedBy(3));
    assertThat(errors).hasSize(2);
    assertThat(errors.get(1).field()).isEqualTo("rules[0].limit");

    write(LOCAL + "  - {id: c, resource: /c, limit: 1, unit: minute}\n");
    time.advance(INTERVAL);
    assertThat(ids()).containsExactly("a", "c");
  }

  @Test
  void deletedFileKeepsTheRulesAndIsReportedOnce() throws Exception {
    reloader = reloader().build();
    reloader.start();
    Files.delete(file);
    time.advance(INTERVAL.multipliedBy(3));
    assertThat(ids()).containsExactly("a");
    assertThat(errors)
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("cannot be read"));
  }

  @Test
  void ruleSetTheEngineRefusesCountsAsAnInvalidVersion() throws Exception {
    reloader = reloader().build();
    reloader.start();
    write("rules:\n  - {id: t, resource: /t, limit: 1, unit: minute, actor: 'custom:tenant'}\n");
    time.advance(INTERVAL.multipliedBy(2));
    assertThat(ids()).containsExactly("a");
    assertThat(errors)
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("custom:tenant"));
  }

  @Tag("integration")
  @Test
  void remoteRulesWinWhileReachable() throws Exception {
    reloader = reloader().remote(serve()).build();
    reloader.start();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();

    served.set(REMOTE + "  - {id: s, resource: /s, limit: 1, unit: minute}\n");
    time.advance(INTERVAL);
    await().atMost(Duration.ofSeconds(10)).until(() -> ids().contains("s"));
    // a local edit changes nothing while the remote answers
    write(LOCAL + "  - {id: local-only, resource: /l, limit: 1, unit: minute}\n");
    pollNow();
    assertThat(ids()).containsExactly("a", "r", "s");
  }

  @Tag("integration")
  @Test
  void unreachableRemoteFallsBackToTheLocalRulesAndComesBack() throws Exception {
    reloader = reloader().remote(serve()).build();
    reloader.start();
    assertThat(allowed("/a")).isTrue();
    assertThat(allowed("/a")).isTrue();

    status.set(503);
    pollNow();
    assertThat(ids()).containsExactly("a");
    assertThat(reloader.remoteInForce()).isFalse();
    assertThat(allowed("/a")).as("rule a kept its counts across the switch").isFalse();
    pollNow();
    pollNow();
    assertThat(log.messages).filteredOn(m -> m.contains("unreachable")).hasSize(1);

    status.set(200);
    pollNow();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(reloader.remoteInForce()).isTrue();
  }

  @Tag("integration")
  @Test
  void remoteThatRefusesConnectionsFallsBackToTheFile() throws Exception {
    URI uri = serve();
    server.stop(0);
    server = null;
    reloader = reloader().remote(uri).build();
    reloader.start();
    assertThat(ids()).containsExactly("a");
    assertThat(reloader.remoteInForce()).isFalse();
    assertThat(log.messages).anySatisfy(m -> assertThat(m).contains("unreachable"));
  }

  @Tag("integration")
  @Test
  void invalidRemoteVersionKeepsTheRulesInForce() throws Exception {
    URI uri = serve();
    reloader = reloader().remote(uri).build();
    reloader.start();
    served.set("rules:\n  - {id: a, resource: /a, limit: 2, unit: minute, scope: everywhere}\n");
    pollNow();
    pollNow();
    assertThat(ids()).containsExactly("a", "r");
    assertThat(errors).singleElement().satisfies(e -> {
      assertThat(e.source()).isEqualTo(uri.toString());
      assertThat(e.line()).isEqualTo(2);
      assertThat(e.field()).isEqualTo("rules[0].scope");
    });
  }

  @Tag("integration")
  @Test
  void remoteOnlyReloaderNeedsNoFile() throws Exception {
    // a generous timeout: the first fetch also builds the HTTP client, which took over 4 s on a
    // machine loaded 20x its cores, and the default 2 s then made this test fail
    reloader = RulesReloader.builder()
        .target(engine)
        .remote(serve())
        .scheduler(time)
        .logger(log)
        .remoteTimeout(Duration.ofSeconds(15))
        .build();
    reloader.start();
    assertThat(ids()).containsExactly("a", "r");
  }

  @Test
  void closeStopsPolling() throws Exception {
    reloader = reloader().build();
    reloader.start();
    reloader.close();
    write(LOCAL + "  - {id: b, resource: /b, limit: 1, unit: minute}\n");
    time.advance(INTERVAL.multipliedBy(3));
    assertThat(ids()).containsExactly("a");
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void builderNamesBadSettings() {
    assertThatThrownBy(() -> RulesReloader.builder().target(engine).build())
        .hasMessageContaining("file or a remote URL");
    assertThatThrownBy(() -> RulesReloader.builder().interval(Duration.ZERO))
        .hasMessageContaining("interval must be > 0 but was PT0S");
    assertThatThrownBy(() -> RulesReloader.builder().remote(URI.create("ftp://x/rules")))
        .hasMessageContaining("ftp://x/rules");
  }
}
