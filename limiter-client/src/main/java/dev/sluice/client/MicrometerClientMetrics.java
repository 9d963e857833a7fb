package dev.sluice.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Micrometer meters for a {@link PacedClient}, tagged {@code client=<name>}:
 * {@code sluice.client.sends}, {@code .throttled}, {@code .retries}, {@code .budget.exhausted},
 * {@code .rejected.locally} (counters) and {@code sluice.client.pace} (gauge, permits per second).
 * Micrometer is an optional dependency: only this class needs it.
 */
public final class MicrometerClientMetrics implements ClientListener {

  private final Counter sends;
  private final Counter throttled;
  private final Counter retries;
  private final Counter budgetExhausted;
  private final Counter rejectedLocally;
  // the pace in milli-permits per second, so the gauge reads a plain field
  private final AtomicLong paceMillis = new AtomicLong();

  public MicrometerClientMetrics(MeterRegistry registry, String name) {
    if (registry == null || name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "registry and a non-blank name are required but were " + registry + ", '" + name + "'");
    }
    sends = counter(registry, "sluice.client.sends", name, "attempts sent");
    throttled = counter(registry, "sluice.client.throttled", name, "attempts answered 429 or 503");
    retries = counter(registry, "sluice.client.retries", name, "throttled records tried again");
    budgetExhausted = counter(
        registry,
        "sluice.client.budget.exhausted",
        name,
        "throttled records not retried because the retry budget was spent");
    rejectedLocally = counter(
        registry, "sluice.client.rejected.locally", name, "records shed by client-side throttling");
    Gauge.builder("sluice.client.pace", paceMillis, p -> p.get() / 1000.0)
        .tag("client", name)
        .description("permits per second in force")
        .register(registry);
  }

  private static Counter counter(
      MeterRegistry registry, String meter, String name, String description) {
    return Counter.builder(meter).tag("client", name).description(description).register(registry);
  }

  @Override
  public void onSend() {
    sends.increment();
  }

  @Override
  public void onThrottled(int status) {
    throttled.increment();
  }

  @Override
  public void onRetry() {
    retries.increment();
  }

  @Override
  public void onBudgetExhausted() {
    budgetExhausted.increment();
  }

  @Override
  public void onRejectedLocally() {
    rejectedLocally.increment();
  }

  @Override
  public void onPace(double permitsPerSecond) {
    paceMillis.set(Math.round(permitsPerSecond * 1000));
  }
}
