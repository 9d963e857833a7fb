package dev.sluice.concurrency;

/**
 * How an attempt to get a permit ended. The HTTP layer maps each to its own answer, which is the
 * point: no peer separates "the queue was full" from "waited too long in the queue".
 */
public enum Outcome {
  /** A permit was granted, at once or after waiting in the queue. */
  ADMITTED,
  /** Every permit was taken and the queue was full: rejected at once (HTTP 429). */
  QUEUE_FULL,
  /** Waited in the queue for longer than {@code queueTimeout} (HTTP 504). */
  QUEUE_TIMEOUT,
  /** The caller gave up while waiting (its future was cancelled, e.g. the client went away). */
  CANCELLED,
  /** The limiter was shut down before a permit was granted (HTTP 503). */
  SHUTDOWN
}
