package dev.sluice.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one {@code System.nanoTime()} costs on this machine: the floor under every limiter that
 * reads the clock per decision. {@code baseline} returns a field, so the difference is the call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClockBenchmark {

  long value = 42;

  @Benchmark
  public long baseline() {
    return value;
  }

  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }

  @Benchmark
  public long currentTimeMillis() {
    return System.currentTimeMillis();
  }
}
