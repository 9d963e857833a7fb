package dev.sluice.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The process CPU time per request of a door benchmark's variants ({@link ServletFilterBenchmark},
 * {@link GrpcInterceptorBenchmark}), where JMH's wall time cannot tell them apart: a request in
 * those benchmarks is handed to the server's own threads, and the hand-off's wait swings the wall
 * time by more than a filter costs. The CPU of every thread of the process (server, benchmark
 * thread, JIT and GC: the garbage a variant makes is part of its cost) is read around batches of
 * requests; the variants run in interleaved rounds, in a palindromic order (A B C D, D C B A, ...)
 * so a drift of the machine falls on each alike. Each variant's ratio to the first (the door with
 * nothing in front) is taken per round, and the median of those ratios is reported with a 95%
 * bootstrap interval; two variants whose intervals overlap are not told apart.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.DoorCpuCost ServletFilterBenchmark
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.DoorCpuCost GrpcInterceptorBenchmark 30 20000
 * </pre>
 *
 * Arguments: the benchmark class (simple name in this package), the rounds (default 30), the
 * requests per batch (default 20,000). The JDK reads the process's CPU time from {@code times(2)}
 * on Linux, in ticks of 10 ms: a batch should take a second or more of CPU so that a tick is a
 * percent of it, and the median over rounds evens the rest. Measure on a quiet machine: the CPU of
 * other processes is not counted, but they take the caches and the cores from this one.
 */
public final class DoorCpuCost {

  private static final int WARMUP_ROUNDS = 5;
  private static final int RESAMPLES = 10_000;

  private DoorCpuCost() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: DoorCpuCost <BenchmarkClass> [rounds] [requestsPerBatch]");
      System.exit(2);
    }
    Class<?> type = Class.forName(DoorCpuCost.class.getPackageName() + "." + args[0]);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
    Object bench = type.getDeclaredConstructor().newInstance();
    List<Method> variants = new ArrayList<>();
    for (Method m : type.getDeclaredMethods()) {
      if (m.isAnnotationPresent(Benchmark.class) && m.getParameterCount() == 0) {
        variants.add(m);
      }
    }
    // the baseline first (the method without a limiter), then the others by name
    variants.sort((a, b) -> {
      boolean aBase = a.getName().startsWith("no");
      boolean bBase = b.getName().startsWith("no");
      return aBase != bBase ? (aBase ? -1 : 1) : a.getName().compareTo(b.getName());
    });
    lifecycle(bench, type, Setup.class);
    try {
      double[][] cpu = new double[variants.size()][rounds];
      double[][] wall = new double[variants.size()][rounds];
      for (int round = -WARMUP_ROUNDS; round < rounds; round++) {
        for (int k = 0; k < variants.size(); k++) {
          int v = Math.floorMod(round, 2) == 0 ? k : variants.size() - 1 - k;
          long cpuStart = processCpuNanos();
          long wallStart = System.nanoTime();
          for (int i = 0; i < batch; i++) {
            variants.get(v).invoke(bench);
          }
          if (round >= 0) {
            wall[v][round] = (System.nanoTime() - wallStart) / (double) batch;
            cpu[v][round] = (processCpuNanos() - cpuStart) / (double) batch;
          }
        }
      }
      print(type.getSimpleName(), variants, cpu, wall, batch);
    } finally {
      lifecycle(bench, type, TearDown.class);
    }
  }

  private static void print(
      String name, List<Method> variants, double[][] cpu, double[][] wall, int batch) {
    int rounds = cpu[0].length;
    System.out.printf(
        Locale.ROOT,
        "%s: %d rounds of %,d requests per variant, process CPU per request%n",
        name,
        rounds,
        batch);
    System.out.printf(
        Locale.ROOT,
        "%-16s %14s %14s %10s %22s%n",
        "variant",
        "CPU us/req",
        "wall us/req",
        "CPU ratio",
        "95% interval (median)");
    SplittableRandom random = new SplittableRandom(42);
    for (int v = 0; v < variants.size(); v++) {
      double[] ratio = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        ratio[r] = cpu[v][r] / cpu[0][r];
      }
      double[] interval = bootstrapMedian(ratio, random);
      System.out.printf(
          Locale.ROOT,
          "%-16s %14.2f %14.2f %10.4f %10.4f .. %.4f%n",
          variants.get(v).getName(),
          median(cpu[v]) / 1000,
          median(wall[v]) / 1000,
          median(ratio),
          interval[0],
          interval[1]);
    }
  }

  /** The 2.5th and 97.5th percentiles of the medians of resamples with replacement. */
  static double[] bootstrapMedian(double[] values, SplittableRandom random) {
    double[] medians = new double[RESAMPLES];
    double[] sample = new double[values.length];
    for (int i = 0; i < RESAMPLES; i++) {
      for (int j = 0; j < sample.length; j++) {
        sample[j] = values[random.nextInt(values.length)];
      }
      medians[i] = median(sample);
    }
    Arrays.sort(medians);
    return new double[] {medians[(int) (RESAMPLES * 0.025)], medians[(int) (RESAMPLES * 0.975) - 1]
    };
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void lifecycle(
      Object bench, Class<?> type, Class<? extends java.lang.annotation.Annotation> which)
      throws IllegalAccessException, InvocationTargetException {
    for (Method m : type.getDeclaredMethods()) {
      if (which == Setup.class
          && m.isAnnotationPresent(Setup.class)
          && m.getAnnotation(Setup.class).value() == Level.Trial) {
        m.invoke(bench);
      } else if (which == TearDown.class
          && m.isAnnotationPresent(TearDown.class)
          && m.getAnnotation(TearDown.class).value() == Level.Trial) {
        m.invoke(bench);
      }
    }
  }
}
