package dev.sluice.store;

/** The shared stores opened for one URI; closing it closes both and the connection behind them. */
public interface Stores extends AutoCloseable {

  RateStore rates();

  PermitStore permits();

  /**
   * What the store is doing now. The default, for a store that cannot fail apart from its callers
   * (in memory), is always up with nothing degraded.
   */
  default StoreHealth health() {
    return new StoreHealth(StoreHealth.UP, rates().describe(), 0, 0);
  }

  @Override
  void close();
}
