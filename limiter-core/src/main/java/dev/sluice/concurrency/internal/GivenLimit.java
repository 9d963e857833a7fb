package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.concurrency.limit.LimitSpec;

/**
 * The spec of a limit source handed over as an instance ({@code Builder.limitSource}, {@code
 * setLimitSource}) rather than described: equal only to itself, so reconfiguring with the spec in
 * force keeps that very source; it cannot build a second one.
 */
final class GivenLimit implements LimitSpec {

  private final LimitSource source;
  private boolean handedOut;

  GivenLimit(LimitSource source) {
    this.source = source;
  }

  @Override
  public String kind() {
    return source.state().strategy();
  }

  @Override
  public boolean adaptive() {
    return source.state().adaptive();
  }

  @Override
  public synchronized LimitSource newSource(int maxConcurrency, int startAt) {
    if (handedOut) {
      throw new IllegalStateException("limit source " + source + " was given as an instance and"
          + " serves one limiter; describe it with LimitSpec.of(kind, factory) to rebuild it");
    }
    handedOut = true;
    return source;
  }

  @Override
  public String toString() {
    return kind();
  }
}
