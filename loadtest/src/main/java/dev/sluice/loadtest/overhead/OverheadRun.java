package dev.sluice.loadtest.overhead;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.sampling.ProcessCpu;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a limiter costs a light request: the same trivial endpoint on several services (no limiter,
 * Sluice, its peers; see {@link OverheadVariant}), all up at once, each in its own JVM. The judge is
 * the <em>server's own CPU time per request</em>, read from the server process ({@link ProcessCpu}),
 * so the load generator's share of the machine does not enter; throughput is reported beside it,
 * and the <em>bytes the server allocates per request</em> ({@link ServerAllocation}), the steady
 * figure that explains the CPU one: it hardly moves with the machine's load.
 *
 * <p>The load comes from {@code wrk} when it is on the PATH (an external generator, as a user
 * comparing limiters would use: {@code wrk -t1 -c16}), else from a built-in closed loop of
 * {@link #CONNECTIONS} workers. The services take turns in rounds, after a warm-up each: a round runs
 * them one after the other and then back in the reverse order ({@link #palindrome}), each round
 * starting with a different one, so a neighbour's build on a shared machine, or a load that rises
 * through the round, slows all alike; every figure is the median over the rounds.
 *
 * <p>{@code --scenario overhead}, or {@code --overhead} as older commands spell it.
 */
public final class OverheadRun implements Experiment {

  static final int CONNECTIONS = 16;
  /** The rounds every run measures: enough that the medians' spread can be stated beside them. */
  static final int ROUNDS = 7;
  /** The most rounds a run measures while an interval is still wider than {@link #PRECISION}. */
  static final int MAX_ROUNDS = 60;
  /** The aim for every ratio's 95% interval against no limiter: ±2%. */
  static final double PRECISION = 0.02;

  static final int WARM_UP_MAX = 8;
  static final String RULES = "overhead-ping-rules.yaml";

  /**
   * One service's figures, medians over its rounds.
   *
   * @param variant which service
   * @param description what guards the endpoint
   * @param cpuMicrosPerRequest server CPU time (user + system) per completed request
   * @param cpuRatio cpuMicrosPerRequest / the baseline's (the judge: lower is better)
   * @param requestsPerSecond completed requests per second of the round
   * @param throughputRatio requestsPerSecond / the baseline's
   * @param p50Millis median latency
   * @param p99Millis 99th percentile latency
   * @param non2xx responses that were not 2xx, over all rounds (a limiter set never to reject: 0)
   * @param cpuPerRound cpuMicrosPerRequest of each round, in round order
   * @param cpuRatioLow the lowest of the rounds' CPU ratios, each round's CPU per request against
   *     the baseline's median (with cpuRatioHigh: the spread of the rounds)
   * @param cpuRatioHigh the highest of them
   * @param bytesPerRequest bytes the server allocated per completed request, all threads, median
   *     over the rounds (NaN: not readable)
   * @param bytesOverBaseline bytesPerRequest minus the baseline's: what the limiter adds
   * @param bytesPerRound bytesPerRequest of each round, in round order
   * @param cpuPaired CPU per request against the baseline's in the same rounds ({@link
   *     PairedRatio}: the geometric mean of the rounds' ratios and its 95% interval)
   */
  record Side(
      String variant,
      String description,
      double cpuMicrosPerRequest,
      double cpuRatio,
      double requestsPerSecond,
      double throughputRatio,
      double p50Millis,
      double p99Millis,
      long non2xx,
      List<Double> cpuPerRound,
      double cpuRatioLow,
      double cpuRatioHigh,
      double bytesPerRequest,
      double bytesOverBaseline,
      List<Double> bytesPerRound,
      PairedRatio cpuPaired) {

    double[] cpuRounds() {
      return cpuPerRound.stream().mapToDouble(Double::doubleValue).toArray();
    }
  }

  /**
   * @param endpoint what was called
   * @param generator {@code wrk -t1 -c16} or the built-in one
   * @param rounds measured rounds per service
   * @param secondsPerRound the time each service was driven in a round (its two slices)
   * @param loadAverageBefore the machine's 1-minute load average before the run (-1: unknown)
   * @param loadAverageAfter and after it
   * @param sides one per service, the baseline first
   */
  record Result(
      String endpoint,
      String generator,
      int rounds,
      double secondsPerRound,
      double loadAverageBefore,
      double loadAverageAfter,
      List<Side> sides) {}

  /**
   * One service under test: where it answers, its process (for CPU time) and how to read the bytes
   * it has allocated so far (-1: unknown).
   */
  record Service(
      URI uri,
      long pid,
      java.util.function.LongUnaryOperator allocatedBytes,
      java.util.function.LongUnaryOperator cpuNanos) {

    Service(URI uri, long pid) {
      this(uri, pid, p -> -1, ProcessCpu::nanos);
    }

    long allocated() {
      return allocatedBytes.applyAsLong(pid);
    }

    long cpu() {
      return cpuNanos.applyAsLong(pid);
    }
  }

  /** What one slice of load on one service gave (a round has two per service). */
  record Round(long requests, long non2xx, double seconds, double p50Millis, double p99Millis) {}

  /** Drives one slice of load. */
  interface Generator {
    String describe();

    Round drive(URI base, Duration length) throws IOException, InterruptedException;
  }

  @Override
  public String id() {
    return "overhead";
  }

  @Override
  public java.util.Set<String> ownOptions() {
    return java.util.Set.of("--variants", "--before-jar");
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario overhead (--overhead) starts its services itself, so it needs --embedded");
    }
    if (options.serverProperties().stream().anyMatch(p -> p.startsWith("server.port="))) {
      throw new IllegalArgumentException("--port cannot be used with --scenario overhead"
          + " (--overhead), which starts several services at once");
    }
    OverheadVariant.select(
        OverheadVariant.all(options.out().resolve(RULES)),
        options.variantList(),
        options.beforeJar());
  }

  /**
   * The whole run: start the services, measure, write {@code overhead.json} and {@code
   * report.html}, and return the report.
   */
  @Override
  public Path run(Options options) throws Exception {
    Files.createDirectories(options.out());
    OverheadVariant.writeRules(options.out().resolve(RULES));
    List<OverheadVariant> variants = OverheadVariant.select(
        OverheadVariant.all(options.out().resolve(RULES)),
        options.variantList(),
        options.beforeJar());
    List<DemoProcess> started = new ArrayList<>();
    try (ServerAllocation allocation = new ServerAllocation()) {
      // all up at once, so they share the machine alike for the whole run
      for (OverheadVariant variant : variants) {
        List<String> properties = new ArrayList<>(options.serverProperties());
        properties.addAll(variant.serverProperties());
        started.add(DemoProcess.start(
            properties,
            options.out().resolve("server-overhead-" + variant.name() + ".log"),
            variant.classPath().map(Path::toString).orElse(System.getProperty("java.class.path"))));
      }
      List<Service> services = started.stream()
          .map(d -> new Service(d.uri(), d.pid(), allocation::bytes, ProcessCpu::nanos))
          .toList();
      Result result = run(
          variants,
          services,
          generator(),
          ROUNDS,
          MAX_ROUNDS,
          options.duration().dividedBy(2L * ROUNDS));
      Reporter.writeJson(options.out().resolve("overhead.json"), result);
      OverheadReport.table(result).echo();
      return Reporter.write(OverheadReport.of(result), options.out());
    } finally {
      started.forEach(DemoProcess::close);
    }
  }

  /**
   * @param variants the set-ups, the baseline first
   * @param services where each runs, in the same order
   * @param rounds the rounds always measured; each round runs every service twice, in a {@link
   *     #palindrome}
   * @param maxRounds the most rounds measured: rounds are added, one at a time, while some
   *     service's CPU ratio to the baseline has a 95% interval wider than ±{@link #PRECISION}
   */
  static Result run(
      List<OverheadVariant> variants,
      List<Service> services,
      Generator generator,
      int rounds,
      int maxRounds,
      Duration slice)
      throws IOException, InterruptedException {
    if (variants.size() != services.size() || variants.isEmpty()) {
      throw new IllegalArgumentException("one service per variant: " + variants.size()
          + " variants, " + services.size() + " services");
    }
    double loadBefore = loadAverage();
    // warm-up, discarded: until the service's CPU per request settles (the JIT of five JVMs on a
    // loaded 2-core machine takes minutes, and an interpreted round costs several times a
    // compiled one), at least twice and at most WARM_UP_MAX rounds each
    Duration warmUp = slice.compareTo(Duration.ofSeconds(10)) > 0 ? slice : Duration.ofSeconds(10);
    for (Service service : services) {
      double previous = Double.NaN;
      for (int w = 0; w < WARM_UP_MAX; w++) {
        double cpu = cpuPerRequest(service, generator, warmUp);
        if (w > 0 && settled(previous, cpu)) {
          break;
        }
        previous = cpu;
      }
    }
    List<List<double[]>> measured = new ArrayList<>();
    services.forEach(s -> measured.add(new ArrayList<>()));
    long[] non2xx = new long[services.size()];
    int r = 0;
    while (r < rounds || (r < maxRounds && !precise(measured))) {
      Slices[] slices = new Slices[services.size()];
      for (int v : palindrome(r, services.size())) {
        Service service = services.get(v);
        long allocatedBefore = service.allocated();
        long cpuBefore = service.cpu();
        Round done = generator.drive(service.uri(), slice);
        long cpuAfter = service.cpu();
        long allocatedAfter = service.allocated();
        slices[v] = (slices[v] == null ? new Slices() : slices[v])
            .add(done, cpuBefore, cpuAfter, allocatedBefore, allocatedAfter);
        non2xx[v] += done.non2xx();
      }
      for (int v = 0; v < services.size(); v++) {
        measured.get(v).add(slices[v].figures());
      }
      r++;
    }
    double baseCpu = median(measured.get(0), 0);
    double baseRate = median(measured.get(0), 1);
    double baseBytes = median(measured.get(0), 4);
    List<Side> sides = new ArrayList<>();
    for (int v = 0; v < variants.size(); v++) {
      List<double[]> m = measured.get(v);
      double cpu = median(m, 0);
      double rate = median(m, 1);
      double bytes = median(m, 4);
      java.util.DoubleSummaryStatistics ratios =
          m.stream().mapToDouble(x -> x[0] / baseCpu).summaryStatistics();
      sides.add(new Side(
          variants.get(v).name(),
          variants.get(v).description(),
          cpu,
          cpu / baseCpu,
          rate,
          rate / baseRate,
          median(m, 2),
          median(m, 3),
          non2xx[v],
          m.stream().map(x -> x[0]).toList(),
          ratios.getMin(),
          ratios.getMax(),
          bytes,
          bytes - baseBytes,
          m.stream().map(x -> x[4]).toList(),
          PairedRatio.of(column(m, 0), column(measured.get(0), 0))));
    }
    return new Result(
        "GET " + OverheadVariant.ENDPOINT,
        generator.describe(),
        r,
        median(measured.get(0), 5),
        loadBefore,
        loadAverage(),
        sides);
  }

  private static double cpuPerRequest(Service service, Generator generator, Duration length)
      throws IOException, InterruptedException {
    long before = service.cpu();
    Round done = generator.drive(service.uri(), length);
    return cpuMicros(done, before, service.cpu());
  }

  /** Whether every service's CPU ratio to the baseline is known to ±{@link #PRECISION}. */
  static boolean precise(List<List<double[]>> measured) {
    double[] base = column(measured.get(0), 0);
    for (int v = 1; v < measured.size(); v++) {
      if (!(PairedRatio.of(column(measured.get(v), 0), base).halfWidth() <= PRECISION)) {
        return false;
      }
    }
    return true;
  }

  private static double[] column(List<double[]> rows, int column) {
    return rows.stream().mapToDouble(row -> row[column]).toArray();
  }

  private static double cpuMicros(Round done, long cpuBefore, long cpuAfter) {
    return done.requests() == 0 || cpuBefore < 0 || cpuAfter < 0
        ? Double.NaN
        : (cpuAfter - cpuBefore) / 1000.0 / done.requests();
  }

  /** Two warm-up rounds within 10% of each other: the JIT is done enough to measure. */
  static boolean settled(double previous, double current) {
    return !Double.isNaN(previous)
        && !Double.isNaN(current)
        && Math.abs(current - previous) <= 0.10 * previous;
  }

  /**
   * The order the services run in round {@code round}: rotated by one each round, so over
   * {@code count} rounds each goes first once and a trend in the machine's load favours none.
   */
  static List<Integer> order(int round, int count) {
    List<Integer> order = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      order.add((round + i) % count);
    }
    return order;
  }

  /**
   * The slices of round {@code round}: its {@link #order} and then the same backwards (A B C C B
   * A), so every service's two slices are centred on the same moment of the round, and a load that
   * rises or falls steadily through the round charges each service alike.
   */
  static List<Integer> palindrome(int round, int count) {
    List<Integer> forward = order(round, count);
    List<Integer> slices = new ArrayList<>(forward);
    for (int i = count - 1; i >= 0; i--) {
      slices.add(forward.get(i));
    }
    return slices;
  }

  /** One service's slices of a round, summed: its figures are ratios of the sums. */
  private static final class Slices {
    private long requests;
    private double seconds;
    private long cpuNanos;
    private boolean cpuKnown = true;
    private long allocated;
    private boolean allocatedKnown = true;
    private double p50Sum;
    private double p99Sum;
    private int count;

    Slices add(
        Round done, long cpuBefore, long cpuAfter, long allocatedBefore, long allocatedAfter) {
      requests += done.requests();
      seconds += done.seconds();
      if (cpuBefore < 0 || cpuAfter < 0) {
        cpuKnown = false;
      } else {
        cpuNanos += cpuAfter - cpuBefore;
      }
      if (allocatedBefore < 0 || allocatedAfter < allocatedBefore) {
        allocatedKnown = false;
      } else {
        allocated += allocatedAfter - allocatedBefore;
      }
      p50Sum += done.p50Millis();
      p99Sum += done.p99Millis();
      count++;
      return this;
    }

    /**
     * CPU µs per request, requests per second, p50, p99 (means of the slices'), bytes per request,
     * seconds driven (the generator's own count: wrk runs whole seconds).
     */
    double[] figures() {
      return new double[] {
        cpuKnown && requests > 0 ? cpuNanos / 1000.0 / requests : Double.NaN,
        seconds > 0 ? requests / seconds : Double.NaN,
        p50Sum / count,
        p99Sum / count,
        allocatedKnown ? ServerAllocation.perRequest(0, allocated, requests) : Double.NaN,
        seconds
      };
    }
  }

  static double median(List<double[]> rows, int column) {
    double[] values = rows.stream()
        .mapToDouble(r -> r[column])
        .filter(d -> !Double.isNaN(d))
        .sorted()
        .toArray();
    if (values.length == 0) {
      return Double.NaN;
    }
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }

  /** wrk when it is on the PATH, else the built-in closed loop. */
  static Generator generator() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path wrk = Path.of(dir, "wrk");
        if (Files.isExecutable(wrk)) {
          return new Wrk(wrk);
        }
      }
    }
    return new BuiltIn(
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** {@code wrk -t1 -c16 --latency}: one thread, so it takes one core at most. */
  record Wrk(Path executable) implements Generator {

    @Override
    public String describe() {
      return "wrk -t1 -c" + CONNECTIONS;
    }

    @Override
    public Round drive(URI base, Duration length) throws IOException, InterruptedException {
      long seconds = Math.max(1, length.toSeconds());
      Process wrk = new ProcessBuilder(
              executable.toString(),
              "-t1",
              "-c" + CONNECTIONS,
              "-d" + seconds + "s",
              "--latency",
              base.resolve(OverheadVariant.ENDPOINT).toString())
          .redirectErrorStream(true)
          .start();
      String output = new String(wrk.getInputStream().readAllBytes(), UTF_8);
      if (wrk.waitFor() != 0) {
        throw new IOException("wrk failed: " + output);
      }
      return parse(output);
    }

    /** Reads wrk's summary: requests, run time, non-2xx responses, latency percentiles. */
    static Round parse(String output) throws IOException {
      java.util.regex.Matcher total = java.util.regex.Pattern.compile(
              "(\\d+) requests in ([0-9.]+)(us|ms|s|m)")
          .matcher(output);
      if (!total.find()) {
        throw new IOException("no request count in wrk's output: " + output);
      }
      java.util.regex.Matcher bad =
          java.util.regex.Pattern.compile("Non-2xx or 3xx responses: (\\d+)").matcher(output);
      return new Round(
          Long.parseLong(total.group(1)),
          bad.find() ? Long.parseLong(bad.group(1)) : 0,
          millis(total.group(2), total.group(3)) / 1000.0,
          percentile(output, "50%"),
          percentile(output, "99%"));
    }

    private static double percentile(String output, String label) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile(
              "(?m)^\\s*" + java.util.regex.Pattern.quote(label) + "\\s+([0-9.]+)(us|ms|s|m)\\s*$")
          .matcher(output);
      return m.find() ? millis(m.group(1), m.group(2)) : Double.NaN;
    }

    private static double millis(String value, String unit) {
      double v = Double.parseDouble(value);
      return switch (unit) {
        case "us" -> v / 1000;
        case "s" -> v * 1000;
        case "m" -> v * 60_000;
        default -> v;
      };
    }
  }

  /** The fallback: a closed loop of {@link #CONNECTIONS} workers on the JDK's HTTP client. */
  record BuiltIn(HttpClient client) implements Generator {

    @Override
    public String describe() {
      return "built-in closed loop, " + CONNECTIONS + " workers (wrk not on PATH)";
    }

    @Override
    public Round drive(URI base, Duration length) throws InterruptedException {
      long start = System.nanoTime();
      long end = start + length.toNanos();
      org.HdrHistogram.Histogram micros = new org.HdrHistogram.ConcurrentHistogram(60_000_000L, 3);
      AtomicLong bad = new AtomicLong();
      List<Thread> workers = new ArrayList<>();
      for (int w = 0; w < CONNECTIONS; w++) {
        Thread thread = new Thread(
            () -> {
              HttpRequest request = HttpRequest.newBuilder(base.resolve(OverheadVariant.ENDPOINT))
                  .timeout(Duration.ofSeconds(10))
                  .build();
              while (System.nanoTime() - end < 0) {
                long sent = System.nanoTime();
                try {
                  int status = client
                      .send(request, HttpResponse.BodyHandlers.discarding())
                      .statusCode();
                  if (status / 100 != 2) {
                    bad.incrementAndGet();
                  }
                } catch (IOException e) {
                  bad.incrementAndGet();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                micros.recordValue(Math.min(60_000_000L, (System.nanoTime() - sent) / 1000));
              }
            },
            "overhead-" + w);
        thread.start();
        workers.add(thread);
      }
      for (Thread worker : workers) {
        worker.join();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Round(
          micros.getTotalCount(),
          bad.get(),
          seconds,
          micros.getValueAtPercentile(50) / 1000.0,
          micros.getValueAtPercentile(99) / 1000.0);
    }
  }
}
