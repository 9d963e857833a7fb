package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Permit;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** {@link ConcurrencyLimiter#acquireBlocking()} on top of a limiter's own future. */
final class Blocking {

  private Blocking() {}

  /**
   * Waits for {@code future}; interrupted, the caller leaves the queue (a permit granted meanwhile
   * goes straight back). A rejection is rethrown as the {@link ConcurrencyRejectedException}.
   */
  // a failed acquire holds no permit, so there is nothing to release
  @SuppressWarnings("FutureReturnValueIgnored")
  static Permit await(String limiter, CompletableFuture<Permit> future)
      throws InterruptedException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      if (!future.cancel(false)) {
        future.thenAccept(Permit::release);
      }
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw new IllegalStateException(e.getCause());
    } catch (CancellationException e) {
      throw new IllegalStateException("acquire of limiter '" + limiter + "' was cancelled", e);
    }
  }
}
