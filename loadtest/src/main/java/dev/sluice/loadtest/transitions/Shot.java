package dev.sluice.loadtest.transitions;

/**
 * One try of one request: where it went, when it was sent and ended, and how it ended.
 *
 * @param node the node it was sent to (1, 2, ...)
 * @param sentNanos when it was sent, {@link System#nanoTime()}
 * @param endNanos when its answer (or its failure) came
 * @param status the HTTP status, or -1 without an answer
 * @param retryAfter whether the answer carried {@code Retry-After}
 * @param problem whether the answer was {@code application/problem+json}
 * @param failure how it failed without an answer, or {@link Failure#NONE}
 */
record Shot(
    int node,
    long sentNanos,
    long endNanos,
    int status,
    boolean retryAfter,
    boolean problem,
    Failure failure) {

  /** How a try ended without an answer. */
  enum Failure {
    /** It was answered. */
    NONE,
    /** The connection was refused: nothing was sent, a load balancer sends it elsewhere. */
    REFUSED,
    /** The connection was closed or reset with the request on it: the request is lost. */
    CUT,
    /** No answer within the client's timeout. */
    TIMEOUT
  }

  static Shot answered(int node, long sent, long end, int status, boolean retryAfter, boolean pj) {
    return new Shot(node, sent, end, status, retryAfter, pj, Failure.NONE);
  }

  static Shot failed(int node, long sent, long end, Failure failure) {
    return new Shot(node, sent, end, -1, false, false, failure);
  }

  double millis() {
    return (endNanos - sentNanos) / 1e6;
  }

  /** 429, 503 or 504: a refusal by the limiter (or the drain). */
  boolean refusal() {
    return status == 429 || status == 503 || status == 504;
  }

  /** The documented answer of a stopping server: 503 problem+json with Retry-After. */
  boolean drainAnswer() {
    return status == 503 && retryAfter && problem;
  }

  /**
   * A 5xx that is none of Sluice's documented answers (the drain answer, or a 504 queue timeout
   * as problem+json).
   */
  boolean undocumented5xx() {
    return status >= 500 && !drainAnswer() && !(status == 504 && problem);
  }
}
