package dev.sluice.client;

/**
 * A record the paced client would not take or would not send: its submission queue is full (the
 * push-back that keeps memory bounded), it is closed, or client-side throttling shed it.
 */
public final class SubmissionRejectedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Why the record was refused. */
  public enum Reason {
    /** The submission queue holds {@code maxQueue} records already; submit again later. */
    QUEUE_FULL,
    /** The client is closed. */
    CLOSED,
    /** Client-side throttling (Google SRE) rejected it locally, without a round trip. */
    THROTTLED_LOCALLY
  }

  private final Reason reason;

  SubmissionRejectedException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
