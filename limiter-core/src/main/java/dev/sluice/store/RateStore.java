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
   * Gives back permits taken by an earlier {@link #tryAcquire} that were allowed, because another
   * rule of the same request rejected it. Best effort; never completes exceptionally.
   */
  CompletionStage<Void> refund(List<RateRequest> requests);

  /** A short human description for logs and snapshots, e.g. {@code redis://127.0.0.1:6379 (up)}. */
  String describe();

  @Override
  void close();
}
