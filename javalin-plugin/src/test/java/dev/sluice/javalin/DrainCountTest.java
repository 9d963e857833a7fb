package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import dev.sluice.http.Answers;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * {@link DrainHandler}'s count without a server: Jetty's request, response and callback are
 * stand-ins, so each test sees the count and the stop's future directly, step by step, as the
 * application's handler answers, fails, declines or throws. {@link DrainHandlerTest} does the same
 * through a real Jetty and HTTP client.
 */
class DrainCountTest {

  private static final Request REQUEST = (Request) Proxy.newProxyInstance(
      DrainCountTest.class.getClassLoader(), new Class<?>[] {Request.class}, (proxy, m, args) -> {
        if (m.getName().equals("toString")) {
          return "a request";
        }
        throw new UnsupportedOperationException(m.getName());
      });

  private final DrainHandler drain;
  private final List<Callback> reached = new ArrayList<>();

  DrainCountTest() {
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(Map.of()).build();
    drain =
        new DrainHandler(new Answers(Settings.resolve(props, Map.of()).statuses()).shuttingDown(7));
  }

  /** What the application does with a request. */
  private enum Does {
    KEEPS, // keeps the callback to answer later
    DECLINES, // takes no request (Jetty answers 404)
    THROWS
  }

  private void app(Does does) {
    drain.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        assertThat(request).isSameAs(REQUEST);
        reached.add(callback);
        return switch (does) {
          case KEEPS -> true;
          case DECLINES -> false;
          case THROWS -> throw new IllegalStateException("the application broke");
        };
      }
    });
  }

  /** A callback that remembers how it ended. */
  private static final class Ended implements Callback {
    int succeeded;
    final List<Throwable> failed = new ArrayList<>();

    @Override
    public void succeeded() {
      succeeded++;
    }

    @Override
    public void failed(Throwable x) {
      failed.add(x);
    }
  }

  /** A response stand-in: its status, headers and body as written, and the write's callback. */
  private static final class Written {
    final HttpFields.Mutable headers = HttpFields.build();
    int status;
    final boolean committed;
    ByteBuffer body;
    boolean last;
    Callback callback;

    Written(boolean committed) {
      this.committed = committed;
    }

    Response response() {
      return (Response) Proxy.newProxyInstance(
          DrainCountTest.class.getClassLoader(),
          new Class<?>[] {Response.class},
          (proxy, m, args) -> switch (m.getName()) {
            case "setStatus" -> {
              status = (Integer) args[0];
              yield null;
            }
            case "getHeaders" -> headers;
            case "isCommitted" -> committed;
            case "write" -> {
              last = (Boolean) args[0];
              body = (ByteBuffer) args[1];
              callback = (Callback) args[2];
              yield null;
            }
            case "toString" -> "a response";
            default -> throw new UnsupportedOperationException(m.getName());
          });
    }
  }

  private boolean handle(Written written, Ended ended) throws Exception {
    return drain.handle(REQUEST, written.response(), ended);
  }

  @Test
  void aRequestRunsUntilItsCallbackSucceedsOnceAndTheStopWaitsForTheLastOne() throws Exception {
    app(Does.KEEPS);
    Ended first = new Ended();
    Ended second = new Ended();
    assertThat(handle(new Written(false), first)).isTrue();
    assertThat(handle(new Written(false), second)).isTrue();
    assertThat(drain.running()).isEqualTo(2);
    assertThat(reached).hasSize(2);

    CompletableFuture<Void> quiet = drain.shutdown();
    assertThat(quiet).isNotDone();
    reached.get(0).succeeded();
    reached.get(0).succeeded(); // a second completion counts nothing out
    reached.get(0).failed(new IllegalStateException("late"));
    assertThat(drain.running()).as("the second still runs").isEqualTo(1);
    assertThat(quiet).isNotDone();
    assertThat(first.succeeded)
        .as("the application's callback goes on to Jetty's")
        .isEqualTo(2);

    reached.get(1).succeeded();
    assertThat(drain.running()).isZero();
    assertThat(quiet).isDone();
    assertThat(second.succeeded).isEqualTo(1);
    assertThat(second.failed).isEmpty();
    assertThat(drain.shutdown()).as("a second stop gets the same future").isSameAs(quiet);
  }

  @Test
  void aFailedRequestIsCountedOutAndItsFailureGoesOn() throws Exception {
    app(Does.KEEPS);
    Ended ended = new Ended();
    handle(new Written(false), ended);
    CompletableFuture<Void> quiet = drain.shutdown();

    IllegalStateException failure = new IllegalStateException("the application failed it");
    reached.get(0).failed(failure);
    reached.get(0).failed(failure);

    assertThat(drain.running()).isZero();
    assertThat(quiet).isDone();
    assertThat(ended.failed).containsExactly(failure, failure);
    assertThat(ended.succeeded).isZero();
  }

  @Test
  void aRequestNoHandlerTakesIsCountedOutAtOnce() throws Exception {
    app(Does.DECLINES);
    Ended ended = new Ended();
    assertThat(handle(new Written(false), ended)).isFalse();
    assertThat(drain.running()).isZero();
    assertThat(drain.shutdown()).isDone();
    assertThat(ended.succeeded).as("Jetty answers it with the same callback").isZero();
    assertThat(ended.failed).isEmpty();
  }

  @Test
  void withoutAnApplicationARequestIsNotTakenAndCountedOut() throws Exception {
    Ended ended = new Ended();
    assertThat(handle(new Written(false), ended)).isFalse();
    assertThat(drain.running()).isZero();
  }

  @Test
  void aHandlerThatThrowsHasItsRequestFailedAndCountedOut() throws Exception {
    app(Does.THROWS);
    Ended ended = new Ended();
    // committed: Jetty's error answer only fails the callback (no error page to write)
    assertThat(handle(new Written(true), ended)).isTrue();
    assertThat(drain.running()).isZero();
    assertThat(ended.failed).singleElement().isInstanceOf(IllegalStateException.class);
  }

  @Test
  void withNoneRunningTheStopIsQuietAtOnceAndANewRequestGetsTheDrainAnswer() throws Exception {
    app(Does.KEEPS);
    assertThat(drain.shutdown()).isDone();
    Written written = new Written(false);
    Ended ended = new Ended();

    assertThat(handle(written, ended)).isTrue();

    assertThat(reached).as("the application never sees it").isEmpty();
    assertThat(written.status).isEqualTo(503);
    assertThat(written.headers.get(HttpHeader.RETRY_AFTER)).isEqualTo("7");
    assertThat(written.headers.get(HttpHeader.CONTENT_TYPE)).isEqualTo("application/problem+json");
    assertThat(written.headers.get(HttpHeader.CONNECTION)).isEqualTo("close");
    assertThat(written.last).isTrue();
    assertThat(StandardCharsets.UTF_8.decode(written.body).toString())
        .contains("\"status\":503")
        .contains("shutting-down");
    assertThat(drain.running()).as("running until its answer is written").isEqualTo(1);
    written.callback.succeeded();
    assertThat(drain.running()).isZero();
    assertThat(ended.succeeded).isEqualTo(1);
  }
}
