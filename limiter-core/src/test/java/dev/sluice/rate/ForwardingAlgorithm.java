package dev.sluice.rate;

/**
 * An algorithm that hands every call to another: a test overrides the one step it wants to
 * interleave with (another caller just before a state is made or updated) and keeps the rest.
 *
 * @param <S> the algorithm's per-key state
 */
class ForwardingAlgorithm<S extends KeyState> implements RateAlgorithm<S> {

  private final RateAlgorithm<S> delegate;

  ForwardingAlgorithm(RateAlgorithm<S> delegate) {
    this.delegate = delegate;
  }

  @Override
  public S newState(long now) {
    return delegate.newState(now);
  }

  @Override
  public boolean decide(S state, long now, long cost, RateOutcome into) {
    return delegate.decide(state, now, cost, into);
  }

  @Override
  public void refund(S state, long now, long cost) {
    delegate.refund(state, now, cost);
  }

  @Override
  public long nanosUntilFull(S state, long now) {
    return delegate.nanosUntilFull(state, now);
  }

  @Override
  public boolean retireIfFullFor(S state, long now, long graceNanos) {
    return delegate.retireIfFullFor(state, now, graceNanos);
  }

  @Override
  public long nanosUntilFull() {
    return delegate.nanosUntilFull();
  }

  @Override
  public long maxIdleNanos() {
    return delegate.maxIdleNanos();
  }
}
