package dev.sluice.client;

/**
 * Events of a {@link PacedClient}, for metrics ({@link MicrometerClientMetrics}) or tests. Called on
 * the client's threads: keep them short and non-blocking. Every method does nothing by default.
 */
public interface ClientListener {

  /** One attempt went out on the wire (first attempts and retries alike). */
  default void onSend() {}

  /** An attempt was answered with a throttling status (429, 503). */
  default void onThrottled(int status) {}

  /** A throttled record is tried again. */
  default void onRetry() {}

  /** A throttled record could have been retried but the retry budget was spent; it is returned as is. */
  default void onBudgetExhausted() {}

  /** Client-side throttling rejected a record without sending it. */
  default void onRejectedLocally() {}

  /** The pace changed: permits per second now in force (0 while no pace is granted). */
  default void onPace(double permitsPerSecond) {}

  /** The listener that does nothing. */
  ClientListener NONE = new ClientListener() {};
}
