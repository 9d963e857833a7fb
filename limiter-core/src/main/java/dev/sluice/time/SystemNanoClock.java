package dev.sluice.time;

enum SystemNanoClock implements NanoClock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
