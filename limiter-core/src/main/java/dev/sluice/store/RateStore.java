package dev.sluice.store;

import dev.sluice.rate.RateDecision;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** Rate state shared by every node, for rules with global scope. */
public interface RateStore extends AutoCloseable {

  /**
   * Decides every rule of one HTTP request together (one pipelined round trip). The answer has one
   * decision per request, in order. Never completes exceptionally: when the store fails, the
   * implementation degrades as its {@link FailurePolicy} says.
   */
  CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests);

  /**
   * Decides as {@link #tryAcquire} does, except that a {@link
   * dev.sluice.rate.Algorithm#FIXED_WINDOW} request counts its cost whatever the window's count:
   * a request refused there still uses up its cost of the window, as envoy/ratelimit's {@code
   * INCRBY} does. Its decision is allowed when the count after it is within the limit, and its
   * remaining is the limit less that count (0 when over). Other algorithms decide as {@link
   * #tryAcquire} does. A refused request's cost is not given back by {@link #refund} unless it is
   * passed there.
   *
   * <p>The default is {@link #tryAcquire}: a store that cannot count past a limit counts nothing
   * for a refused request, which answers differently only once a request of several permits has
   * been refused. Decisions a store makes without its shared state (its {@link FailurePolicy})
   * may do the same.
   */
  default CompletionStage<List<RateDecision>> countAndDecide(List<RateRequest> requests) {
    return tryAcquire(requests);
  }

  /**
   * Gives back permits taken by an earlier {@link #tryAcquire} that were allowed, because another
   * rule of the same request rejected it. Best effort; never completes exceptionally.
   */
  CompletionStage<Void> refund(List<RateRequest> requests);

  /** A short human description for logs and snapshots, e.g. {@code redis://127.0.0.1:6379 (up)}. */
  String describe();

  @Override
  void close();
}
