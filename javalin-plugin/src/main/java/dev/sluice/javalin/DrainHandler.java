package dev.sluice.javalin;

import dev.sluice.http.Answers;
import dev.sluice.http.Problem;
import dev.sluice.http.Rejection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Counts the requests Jetty runs, from the moment a request reaches the handlers until its
 * response is complete (its callback), so that a stop can wait until none runs. After {@link
 * #shutdown()} a new request gets the plugin's drain answer (503 {@code application/problem+json}
 * with {@code Retry-After}, and {@code Connection: close}), where Jetty's {@code GracefulHandler}
 * would write its own error page without {@code Retry-After}.
 *
 * <p>Why not that handler: this one does the same with one small object per request (the counting
 * callback), where Jetty 12.1's {@code GracefulHandler} wraps the request and its streams as well,
 * several hundred bytes per request, which showed in the allocation profile of a trivial endpoint.
 * A {@code GracefulHandler} the application installed itself is used instead of this one.
 */
final class DrainHandler extends Handler.Wrapper {

  private final LongAdder running = new LongAdder();
  private final Rejection drainAnswer;
  private final byte[] drainBody;
  private volatile CompletableFuture<Void> quiet; // set by shutdown

  /** @param drainAnswer what a request that arrives after {@link #shutdown()} is answered */
  DrainHandler(Rejection drainAnswer) {
    this.drainAnswer = drainAnswer;
    this.drainBody = Answers.problem(drainAnswer).toJson().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // counted before the shutdown check, so a stop never misses a request that got past it
    running.increment();
    Counted counted = new Counted(callback);
    if (quiet != null) {
      response.setStatus(drainAnswer.status);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
      response.getHeaders().put(HttpHeader.RETRY_AFTER, drainAnswer.retryAfterSeconds);
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      response.write(true, ByteBuffer.wrap(drainBody), counted);
      return true;
    }
    try {
      boolean handled = super.handle(request, response, counted);
      if (!handled) {
        counted.done();
      }
      return handled;
    } catch (Throwable t) {
      Response.writeError(request, response, counted, t);
      return true;
    }
  }

  /**
   * From now on new requests get the drain answer; the future completes once no request runs (at once if none
   * does). Later calls answer the same future.
   */
  synchronized CompletableFuture<Void> shutdown() {
    if (quiet == null) {
      quiet = new CompletableFuture<>();
    }
    checkQuiet();
    return quiet;
  }

  /** The requests running now. */
  long running() {
    return running.sum();
  }

  private void checkQuiet() {
    CompletableFuture<Void> q = quiet;
    if (q != null && running.sum() == 0) {
      q.complete(null);
    }
  }

  /** The request's callback, counting the request out once when it completes either way. */
  private final class Counted extends Callback.Nested {
    private static final AtomicIntegerFieldUpdater<Counted> DONE =
        AtomicIntegerFieldUpdater.newUpdater(Counted.class, "done");

    @SuppressWarnings("UnusedVariable") // read and written through DONE, the field updater
    private volatile int done; // a field, not an AtomicBoolean: one object per request, not two

    Counted(Callback callback) {
      super(callback);
    }

    void done() {
      if (DONE.compareAndSet(this, 0, 1)) {
        running.decrement();
        checkQuiet();
      }
    }

    @Override
    public void succeeded() {
      done();
      super.succeeded();
    }

    @Override
    public void failed(Throwable cause) {
      done();
      super.failed(cause);
    }
  }
}
