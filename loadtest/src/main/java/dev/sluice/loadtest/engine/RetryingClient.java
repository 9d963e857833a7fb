package dev.sluice.loadtest.engine;

import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A polite client: sends a request, and on 429, 503, 504 or an I/O failure tries again after the
 * backoff (which honours {@code Retry-After}), at most {@code maxAttempts} tries in all. Every request
 * and every try is counted in the ledger; latencies are measured from the intended send time.
 */
public final class RetryingClient implements OpenLoopDispatcher.Sender {

  static final Set<Integer> RETRYABLE = Set.of(429, 503, 504);

  private final Transport transport;
  private final LoadClock clock;
  private final IntervalBiFunction<Reply> backoff;
  private final int maxAttempts;
  private final Ledger ledger;
  private final Observations observations;
  private final long startNanos;

  public RetryingClient(
      Transport transport,
      LoadClock clock,
      IntervalBiFunction<Reply> backoff,
      int maxAttempts,
      Ledger ledger,
      Observations observations,
      long startNanos) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max-attempts must be >= 1 but was " + maxAttempts);
    }
    this.transport = transport;
    this.clock = clock;
    this.backoff = backoff;
    this.maxAttempts = maxAttempts;
    this.ledger = ledger;
    this.observations = observations;
    this.startNanos = startNanos;
  }

  @Override
  public void send(Arrival arrival, long intendedNanos) {
    Ledger.Job job = ledger.open(arrival, intendedNanos);
    if (job != null) {
      attempt(job, 1);
    }
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void attempt(Ledger.Job job, int attempt) {
    CompletableFuture<Reply> reply;
    try {
      reply = transport.send(job.arrival);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, error) -> answered(job, attempt, r, error));
  }

  private void answered(Ledger.Job job, int attempt, Reply reply, Throwable error) {
    long now = clock.nanoTime();
    String status = error != null ? Accounting.IO_ERROR : Integer.toString(reply.status());
    ledger.answered(job, status);
    observations.attempt(status, (int) TimeUnit.NANOSECONDS.toSeconds(now - startNanos));
    boolean retryable = error != null || RETRYABLE.contains(reply.status());
    if (retryable && attempt < maxAttempts) {
      Either<Throwable, Reply> result = error != null ? Either.left(error) : Either.right(reply);
      long delayMillis = backoff.apply(attempt, result);
      clock.schedule(
          () -> {
            if (ledger.retry(job)) {
              attempt(job, attempt + 1);
            }
          },
          TimeUnit.MILLISECONDS.toNanos(delayMillis));
      return;
    }
    if (ledger.finish(job, status, retryable)) {
      observations.outcome(job.arrival.stream(), status, now - job.intendedNanos);
      if (reply != null && reply.status() / 100 == 2) {
        observations.jobBody(job.arrival.stream(), reply.body());
      }
    }
  }
}
