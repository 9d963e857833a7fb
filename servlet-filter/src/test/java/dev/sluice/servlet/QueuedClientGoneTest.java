package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.TrustedProxies;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A queued request whose client is gone, as the container reports it to the filter's async
 * listener (an error, then the completion the container makes): it leaves the queue, freeing its
 * place, and is counted once as the Javalin plugin counts it, {@code cancelled} with 499, on the
 * real limiter. (Neither Jetty nor Tomcat reports a vanished HTTP/1.1 client of a suspended
 * request, so the event is handed to the listener here.)
 */
class QueuedClientGoneTest {

  private final List<String> rejections = new ArrayList<>();
  private final SluiceProperties properties = SluiceProperties.builder()
      .env(Map.of())
      .system(Map.of(
          "sluice.limiters.work.path", "/api/work",
          "sluice.limiters.work.max-concurrency", "1",
          "sluice.limiters.work.max-queue", "1"))
      .build();
  private final SluiceSettings settings = SluiceSettings.resolve(properties, Map.of());
  private final LimiterConfig config = settings.limiters().get("work");
  private final PathLimiter work = new PathLimiter(
      config,
      ConcurrencyLimiter.builder("work")
          .spec(config.spec())
          .executor(Runnable::run)
          .build());
  private final Door door = new Door(
      settings,
      TrustedProxies.of(settings, properties),
      List.of(work),
      null,
      (why, status) -> rejections.add(why + " " + status));

  @AfterEach
  void shutdown() {
    work.limiter().shutdown();
  }

  private static AsyncEvent clientReset() {
    return new AsyncEvent(ENDED, new EOFException("reset by the client"));
  }

  private static AsyncEvent completed() {
    return new AsyncEvent(ENDED);
  }

  /** The async cycle an event names; the filter's listener reads nothing of it on an end. */
  private static final AsyncContext ENDED = new AsyncContext() {
    @Override
    public ServletRequest getRequest() {
      return null;
    }

    @Override
    public ServletResponse getResponse() {
      return null;
    }

    @Override
    public boolean hasOriginalRequestAndResponse() {
      return true;
    }

    @Override
    public void dispatch() {
      throw new IllegalStateException("ended");
    }

    @Override
    public void dispatch(String path) {
      throw new IllegalStateException("ended");
    }

    @Override
    public void dispatch(ServletContext context, String path) {
      throw new IllegalStateException("ended");
    }

    @Override
    public void complete() {
      throw new IllegalStateException("ended");
    }

    @Override
    public void start(Runnable run) {
      throw new IllegalStateException("ended");
    }

    @Override
    public void addListener(AsyncListener listener) {
      throw new IllegalStateException("ended");
    }

    @Override
    public void addListener(
        AsyncListener listener, ServletRequest request, ServletResponse response) {
      throw new IllegalStateException("ended");
    }

    @Override
    public <T extends AsyncListener> T createListener(Class<T> type) {
      throw new IllegalStateException("ended");
    }

    @Override
    public void setTimeout(long timeout) {
      throw new IllegalStateException("ended");
    }

    @Override
    public long getTimeout() {
      return 0;
    }
  };

  @Test
  void aQueuedRequestWhoseClientIsGoneLeavesTheQueueCountedCancelledOnce() throws Exception {
    Permit running = work.limiter().acquire().join();
    CompletableFuture<Permit> waiting = work.limiter().acquire();
    assertThat(work.limiter().snapshot().queued()).isEqualTo(1);
    AsyncListener end = door.requestEnd(new Admission(work, waiting, null));

    end.onError(clientReset());
    end.onComplete(completed()); // the container completes the failed request

    assertThat(waiting).isCancelled();
    assertThat(work.limiter().snapshot().queued()).isZero();
    assertThat(work.limiter().snapshot().cancelled()).isEqualTo(1);
    assertThat(rejections).containsExactly("cancelled 499");
    // its place is free: the next request queues, and the released permit goes to it
    CompletableFuture<Permit> next = work.limiter().acquire();
    assertThat(work.limiter().snapshot().queued()).isEqualTo(1);
    running.release();
    assertThat(next).isCompleted();
    next.join().release();
    assertThat(work.limiter().snapshot().inFlight()).isZero();
  }

  @Test
  void aRequestWhosePermitCameFirstIsNoCancelAndGivesThePermitBack() throws Exception {
    Permit running = work.limiter().acquire().join();
    CompletableFuture<Permit> waiting = work.limiter().acquire();
    Admission admission = new Admission(work, waiting, null);
    AsyncListener end = door.requestEnd(admission);
    running.release();
    assertThat(admission.hold(waiting.join())).isTrue();

    end.onError(clientReset());

    assertThat(work.limiter().snapshot().cancelled()).isZero();
    assertThat(work.limiter().snapshot().inFlight()).isZero();
    assertThat(rejections).isEmpty();
  }

  @Test
  void aRequestAdmittedAtOnceThatEndsIsNoCancel() throws Exception {
    Admission admission = new Admission(work, work.limiter().acquire().join(), null);

    door.requestEnd(admission).onComplete(completed());

    assertThat(work.limiter().snapshot().cancelled()).isZero();
    assertThat(work.limiter().snapshot().inFlight()).isZero();
    assertThat(rejections).isEmpty();
  }
}
