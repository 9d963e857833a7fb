package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Resilience4j-style use of a limiter without the plugin: every path gives the permit back. */
class ConcurrencyLimiterDecoratorsTest {

  private final Limiters limiters = new Limiters();

  @Test
  void completionStageHoldsThePermitUntilTheStageCompletes() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    CompletableFuture<String> work = new CompletableFuture<>();

    CompletableFuture<String> result = limiter.executeCompletionStage(() -> work);
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    assertThat(result).isNotDone();

    work.complete("done");
    assertThat(result).isCompletedWithValue("done");
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void completionStageReleasesOnAFailedStageAThrowingJobAndANullStage() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);

    CompletableFuture<String> failed = limiter.executeCompletionStage(
        () -> CompletableFuture.failedFuture(new IOException("disk")));
    assertThatThrownBy(failed::join).hasCauseInstanceOf(IOException.class);
    CompletableFuture<String> thrown = limiter.executeCompletionStage(() -> {
      throw new IllegalStateException("bug");
    });
    assertThatThrownBy(thrown::join).hasCauseInstanceOf(IllegalStateException.class);
    CompletableFuture<String> nothing = limiter.executeCompletionStage(() -> null);
    assertThatThrownBy(nothing::join).hasCauseInstanceOf(NullPointerException.class);

    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.snapshot().admitted()).isEqualTo(3);
  }

  @Test
  void completionStageWaitsWithoutAThreadAndRunsWhenAPermitFrees() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> a = limiter.executeCompletionStage(() -> first);
    boolean[] secondRan = {false};
    CompletableFuture<String> b = limiter.executeCompletionStage(() -> {
      secondRan[0] = true;
      return CompletableFuture.completedFuture("b");
    });
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
    assertThat(secondRan[0]).isFalse();

    first.complete("a");
    limiters.executor.runAll();

    assertThat(a).isCompletedWithValue("a");
    assertThat(b).isCompletedWithValue("b");
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void completionStageRejectedWhenTheQueueIsFull() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    limiter.executeCompletionStage(CompletableFuture::new); // holds the permit forever

    CompletableFuture<Object> rejected =
        limiter.executeCompletionStage(() -> CompletableFuture.completedFuture("never"));

    assertThatThrownBy(rejected::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(ConcurrencyRejectedException.class)
        .satisfies(e ->
            assertThat(((ConcurrencyRejectedException) e).outcome()).isEqualTo(Outcome.QUEUE_FULL));
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void cancellingAQueuedCompletionStageLeavesTheQueueAndNeverRunsTheJob() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    CompletableFuture<String> first = new CompletableFuture<>();
    limiter.executeCompletionStage(() -> first);
    boolean[] ran = {false};
    CompletableFuture<String> queued = limiter.executeCompletionStage(() -> {
      ran[0] = true;
      return CompletableFuture.completedFuture("x");
    });

    queued.cancel(false);
    assertThat(limiter.snapshot().queued()).isZero();
    first.complete("a");
    limiters.executor.runAll();

    assertThat(ran[0]).isFalse();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  // the first job's result is not needed: it only holds the permit
  @SuppressWarnings("FutureReturnValueIgnored")
  void aCompletionStageTheCallerCompletedWhileQueuedGivesItsPermitBackUnused() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    CompletableFuture<String> first = new CompletableFuture<>();
    limiter.executeCompletionStage(() -> first);
    boolean[] ran = {false};
    CompletableFuture<String> queued = limiter.executeCompletionStage(() -> {
      ran[0] = true;
      return CompletableFuture.completedFuture("x");
    });

    queued.complete("given up"); // not a cancel: the caller stays in the queue
    first.complete("a");
    limiters.executor.runAll(); // the permit reaches a caller that no longer wants it

    assertThat(ran[0]).isFalse();
    assertThat(queued).isCompletedWithValue("given up");
    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.snapshot().admitted()).isEqualTo(2);
  }

  @Test
  void aLimiterOfASpecOnTheSystemClockHasTheSpecAndName() {
    LimiterSpec spec = Limiters.spec(3, 2, Duration.ofSeconds(1)).build();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.of("plain", spec);
    try {
      assertThat(limiter.name()).isEqualTo("plain");
      assertThat(limiter.spec()).isEqualTo(spec);
      assertThat(limiter.tryAcquire()).isPresent();
      assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    } finally {
      limiter.shutdown();
    }
  }

  @Test
  void decoratedSupplierAndCallableReleaseOnReturnAndOnThrow() throws Exception {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    Supplier<Integer> inFlightInside =
        limiter.decorateSupplier(() -> limiter.snapshot().inFlight());
    assertThat(inFlightInside.get()).isEqualTo(1);
    Callable<String> failing = limiter.decorateCallable(() -> {
      throw new IOException("disk");
    });
    assertThatThrownBy(failing::call).isInstanceOf(IOException.class);
    Supplier<String> throwing = limiter.decorateSupplier(() -> {
      throw new IllegalStateException("bug");
    });
    assertThatThrownBy(throwing::get).isInstanceOf(IllegalStateException.class);

    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.decorateCallable(() -> "ok").call()).isEqualTo("ok");
  }

  @Test
  void decoratedSupplierIsRejectedWhenFull() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    Permit held = admitted(limiter.acquire());

    assertThatThrownBy(() -> limiter.decorateSupplier(() -> "x").get())
        .isInstanceOf(ConcurrencyRejectedException.class);
    held.release();
  }

  @Test
  void decoratedCallableWaitsAtMostTheLimitersTimeout() throws Exception {
    ConcurrencyLimiter limiter = limiters.builder(1, 1, Duration.ofSeconds(3)).build();
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> {
      try {
        return limiter.decorateCallable(() -> "x").call();
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    org.awaitility.Awaitility.await().until(() -> limiter.snapshot().queued() == 1);

    limiters.time.advance(Duration.ofSeconds(3)); // virtual time: the queue timeout fires
    limiters.executor.runAll();

    assertThatThrownBy(() -> blocked.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(ConcurrencyRejectedException.class)
        .satisfies(e -> assertThat(((ConcurrencyRejectedException) e).outcome())
            .isEqualTo(Outcome.QUEUE_TIMEOUT));
    held.release();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void anInterruptedSupplierLeavesTheQueueAndKeepsTheFlag() throws Exception {
    ConcurrencyLimiter limiter = limiters.limiter(1, 1);
    Permit held = admitted(limiter.acquire());
    CountDownLatch done = new CountDownLatch(1);
    Throwable[] seen = new Throwable[1];
    boolean[] flag = {false};
    Thread t = new Thread(() -> {
      try {
        String unused = limiter.decorateSupplier(() -> "x").get();
      } catch (Throwable e) {
        seen[0] = e;
        flag[0] = Thread.currentThread().isInterrupted();
      }
      done.countDown();
    });
    t.start();
    org.awaitility.Awaitility.await().until(() -> limiter.snapshot().queued() == 1);

    t.interrupt();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(seen[0]).isInstanceOf(CancellationException.class);
    assertThat(flag[0]).isTrue();
    assertThat(limiter.snapshot().queued()).isZero();
    held.release();
    limiters.executor.runAll();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }
}
