package dev.sluice.store;

/** The shared stores opened for one URI; closing it closes both and the connection behind them. */
public interface Stores extends AutoCloseable {

  RateStore rates();

  PermitStore permits();

  @Override
  void close();
}
