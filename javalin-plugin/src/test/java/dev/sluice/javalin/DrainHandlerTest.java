package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.http.Answers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DrainHandler} in front of a plain Jetty handler: a request counts as running until its
 * response is complete, however it ends (answered, not handled, thrown, failed), and after a
 * shutdown a new request gets the drain answer instead of reaching the application.
 */
class DrainHandlerTest {

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger reached = new AtomicInteger();
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private Server jetty;
  private DrainHandler drain;
  private String base;

  /** The application: what it does depends on the path. */
  private final class App extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      reached.incrementAndGet();
      switch (Request.getPathInContext(request)) {
        case "/park" -> {
          // answered later, from another thread, as an asynchronous application does
          Thread answer = new Thread(() -> {
            try {
              if (release.await(20, TimeUnit.SECONDS)) {
                ok(response, callback);
              }
            } catch (InterruptedException e) {
              callback.failed(e);
            }
          });
          answer.start();
          return true;
        }
        case "/none" -> {
          return false;
        }
        case "/throw" -> throw new IllegalStateException("the application broke");
        case "/fail" -> {
          callback.failed(new IOException("the application failed the request"));
          return true;
        }
        default -> {}
      }
      ok(response, callback);
      return true;
    }
  }

  private static void ok(Response response, Callback callback) {
    response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)), callback);
  }

  @BeforeEach
  void start() throws Exception {
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    jetty.addConnector(connector);
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(Map.of()).build();
    drain =
        new DrainHandler(new Answers(Settings.resolve(props, Map.of()).statuses()).shuttingDown(7));
    drain.setHandler(new App());
    jetty.setHandler(drain);
    jetty.start();
    base = "http://127.0.0.1:" + connector.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    jetty.stop();
  }

  private CompletableFuture<HttpResponse<String>> getAsync(String path) {
    HttpRequest get = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(5))
        .build();
    return client.sendAsync(get, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) {
    return getAsync(path).join();
  }

  private void awaitNoneRunning() {
    await().atMost(Duration.ofSeconds(2)).until(() -> drain.running() == 0);
  }

  @Test
  void aRequestRunsUntilItsResponseIsCompleteAndTheStopWaitsForIt() {
    CompletableFuture<HttpResponse<String>> parked = getAsync("/park");
    await().atMost(Duration.ofSeconds(2)).until(() -> drain.running() == 1);

    CompletableFuture<Void> quiet = drain.shutdown();
    assertThat(quiet).as("one request still runs").isNotDone();
    assertThat(parked).as("its handler returned, its answer is still to come").isNotDone();
    release.countDown();

    assertThat(parked.join().body()).isEqualTo("ok");
    await().atMost(Duration.ofSeconds(2)).until(quiet::isDone);
    assertThat(drain.running()).isZero();
    assertThat(drain.shutdown()).as("a second stop gets the same future").isSameAs(quiet);
  }

  @Test
  void afterTheShutdownANewRequestGetsTheDrainAnswerWithoutReachingTheApplication() {
    assertThat(drain.shutdown()).as("none runs: quiet at once").isDone();

    HttpResponse<String> answer = get("/hello");

    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.headers().firstValue("Retry-After")).hasValue("7");
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(answer.body()).contains("\"status\":503").contains("shutting-down");
    assertThat(reached).hasValue(0);
    awaitNoneRunning();
  }

  @Test
  void aRequestNoHandlerTakesIs404AndCountedOut() {
    assertThat(get("/none").statusCode()).isEqualTo(404);
    awaitNoneRunning();
    assertThat(drain.shutdown()).isDone();
  }

  @Test
  void aHandlerThatThrowsIs500AndCountedOut() {
    assertThat(get("/throw").statusCode()).isEqualTo(500);
    awaitNoneRunning();
  }

  @Test
  void aRequestTheApplicationFailsIs500AndCountedOut() {
    assertThat(get("/fail").statusCode()).isEqualTo(500);
    awaitNoneRunning();
  }

  @Test
  void anAnsweredRequestIsCountedOutAndItsConnectionServesTheNext() {
    assertThat(get("/hello").body()).isEqualTo("ok");
    assertThat(get("/hello").body()).isEqualTo("ok");
    awaitNoneRunning();
    assertThat(reached).hasValue(2);
  }
}
