package dev.sluice.loadtest.transitions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.monday.ClipLibrary;
import dev.sluice.loadtest.monday.CpuTrace;
import dev.sluice.loadtest.monday.MachineSampler;
import dev.sluice.loadtest.monday.MondayLoad;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.soak.GlobalNodes;
import dev.sluice.loadtest.soak.SoakRedis;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * {@code --scenario transitions}: the moments users meet Sluice in, each a short part on fresh
 * demo processes, each with its verdicts: a cold node into 5x overload, a cold node into the
 * Monday mix of real ffmpeg transcodes, a second node joining an
 * overloaded one on one Redis, that node killed with {@code kill -9} while it holds leases, a
 * rolling restart of two nodes under load, and a reload that changes the limit strategy and the
 * queue discipline with 40 callers waiting. {@code --duration} is the length of one part's load
 * (default 20 s); {@code --variants} picks parts.
 */
public final class TransitionsRun implements Experiment {

  static final List<String> PARTS =
      List.of("cold-start", "cold-ffmpeg", "scale-out", "kill", "rolling-restart", "reload");

  /**
   * How long the cold ffmpeg node's clients wait for answers after its load: every refusal comes
   * within the demo's queue timeout (10 s); a job still transcoding after it counts as open.
   */
  static final Duration FFMPEG_DRAIN = Duration.ofSeconds(15);

  static final List<String> FFMPEG_BINARIES = List.of("ffmpeg", "ffprobe");

  /** The global limit of the two-node parts, and each node's share of it. */
  static final int GLOBAL_LIMIT = 4;

  static final int WAITERS = 40;
  private static final int HOSTS = 32;

  @Override
  public String id() {
    return "transitions";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--variants");
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofSeconds(20);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario transitions starts, stops and kills its services itself, so it needs"
              + " --embedded");
    }
    parts(options);
  }

  /** {@code --variants}: a comma list of the parts, or every part. */
  static List<String> parts(Options options) {
    if (options.variantList().isEmpty()) {
      return PARTS;
    }
    List<String> parts = new ArrayList<>();
    for (String part : options.variantList().get().split(",")) {
      String p = part.trim();
      if (!PARTS.contains(p)) {
        throw new IllegalArgumentException("--variants for --scenario transitions must be a comma"
            + " list of " + String.join(", ", PARTS) + " but has '" + p + "'");
      }
      parts.add(p);
    }
    return parts;
  }

  @Override
  public Path run(Options options) throws Exception {
    Path out = options.out();
    List<String> parts = parts(options);
    TransitionsReport report = new TransitionsReport(options, LoadAverage.read());
    if (parts.contains("cold-start")) {
      report.part("cold-start", safely(() -> coldStart(options, report)));
    }
    if (parts.contains("cold-ffmpeg")) {
      report.part("cold-ffmpeg", safely(() -> coldFfmpeg(options, report)));
    }
    if (parts.contains("scale-out") || parts.contains("kill")) {
      report.part("scale-out and kill -9", safely(() -> cluster(options, parts, report)));
    }
    if (parts.contains("rolling-restart")) {
      report.part("rolling-restart", safely(() -> rollingRestart(options, report)));
    }
    if (parts.contains("reload")) {
      report.part("reload", safely(() -> reload(options, report)));
    }
    report.loadAfter(LoadAverage.read());
    return report.write(out);
  }

  /** A part that throws is reported as not measured, and the next part still runs. */
  private static List<Verdict> safely(PartBody body) {
    try {
      return body.run();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return List.of(Verdict.notMeasured("the part did not run to its end: " + e));
    }
  }

  @FunctionalInterface
  private interface PartBody {
    List<Verdict> run() throws Exception;
  }

  // ---- (a) cold start

  private List<Verdict> coldStart(Options options, TransitionsReport report) throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    double rate = 5 * cores * 1000.0 / 400;
    List<String> props = new ArrayList<>(options.serverProperties());
    try (DemoProcess node = DemoProcess.start(props, options.out().resolve("server-cold.log"));
        Balancer balancer = new Balancer(Duration.ofSeconds(30))) {
      long start = System.nanoTime();
      try (Watch watch = new Watch(balancer.client(), start)) {
        watch.watch(1, node.uri(), node.pid());
        watch.start();
        balancer.add(1, node.uri());
        AtomicInteger host = new AtomicInteger();
        balancer.stream(
            rate,
            options.seed(),
            () -> new Balancer.Call(
                "POST",
                "api/transcode?cpuMillis=400",
                Map.of("X-Host-Id", "host-" + host.getAndIncrement() % HOSTS)));
        Thread.sleep(options.duration().toMillis()); // the part's load runs meanwhile
        balancer.stop(Duration.ofSeconds(20));
        List<Shot> shots =
            balancer.requests().stream().flatMap(r -> r.tries().stream()).toList();
        long first = shots.stream().mapToLong(Shot::sentNanos).min().orElse(start);
        report.figure("cold-start", "offered jobs/s (5x the capacity at 400 ms each)", rate);
        report.figure("cold-start", "requests", shots.size());
        report.statuses("cold-start", balancer.requests());
        report.cpu("cold-start", "CPU of the node, % of the machine, every 0.5 s", watch.cpu());
        return Figures.coldStart(
            shots,
            first,
            (double) options.duration().toSeconds(),
            watch.cpu(),
            100 * cpuTarget(props));
      }
    }
  }

  // ---- (a') cold start into the Monday ffmpeg mix

  // the sampler stops before the figures are built; the try closes it when the part fails
  @SuppressWarnings("try")
  private List<Verdict> coldFfmpeg(Options options, TransitionsReport report) throws Exception {
    String label = "cold start (ffmpeg)";
    List<String> missing =
        Figures.missingFromPath(System.getenv().getOrDefault("PATH", ""), FFMPEG_BINARIES);
    if (!missing.isEmpty()) {
      return List.of(Verdict.notMeasured(label + ": skipped, " + String.join(" and ", missing)
          + " not on PATH (apt-get install ffmpeg)"));
    }
    Path clipDir = options.out().resolve("clips");
    ClipLibrary library = ClipLibrary.MONDAY;
    System.out.println(
        "transitions cold-ffmpeg: clip library: " + library.missing(clipDir).size() + " of "
            + library.clips().size() + " clips to make in " + clipDir);
    List<Path> files = library.ensure(clipDir, "ffmpeg");
    List<String> props = new ArrayList<>(List.of("demo.engine=ffmpeg"));
    props.addAll(options.serverProperties()); // the command line's -D come last and win
    List<MondayLoad.Try> tries = new CopyOnWriteArrayList<>();
    try (DemoProcess node =
        DemoProcess.start(props, options.out().resolve("server-cold-ffmpeg.log"))) {
      long start = System.nanoTime();
      try (MachineSampler sampler = new MachineSampler(node.uri(), start)) {
        sampler.start();
        new MondayLoad(node.uri(), library, files, options.duration(), FFMPEG_DRAIN, options.seed())
            .onTry(tries::add)
            .run(start);
        sampler.close();
        List<Shot> shots = shots(tries);
        long first = shots.stream().mapToLong(Shot::sentNanos).min().orElse(start);
        List<Figures.Cpu> cpu = machineCpu(sampler.trace());
        report.figure("cold-ffmpeg", "transcode tries (32 hosts and the rescue job)", shots.size());
        report.figure("cold-ffmpeg", "refusals (429, 503, 504)", (double)
            shots.stream().filter(Shot::refusal).count());
        report.statuses(
            "cold-ffmpeg",
            shots.stream().map(s -> new Figures.Request(List.of(s))).toList());
        report.cpu(
            "cold-ffmpeg",
            "the machine's CPU (ffmpeg's child processes count), % of the machine, every second",
            cpu);
        return Figures.coldStart(
            label,
            shots,
            first,
            (double) options.duration().toSeconds(),
            cpu,
            100 * cpuTarget(props));
      }
    }
  }

  private static double cpuTarget(List<String> props) {
    return props.stream()
        .filter(p -> p.startsWith("demo.cpu-target="))
        .map(p -> Double.parseDouble(p.substring("demo.cpu-target=".length())))
        .reduce((a, b) -> b)
        .orElse(0.7);
  }

  // ---- (b) scale-out and (c) kill -9

  private List<Verdict> cluster(Options options, List<String> parts, TransitionsReport report)
      throws Exception {
    Path out = options.out();
    Path rules = GlobalNodes.writeRules(out.resolve("transitions-rules.yaml"));
    Duration d = options.duration();
    List<Verdict> verdicts = new ArrayList<>();
    try (SoakRedis redis = SoakRedis.start(out.resolve("redis.log"));
        Balancer balancer = new Balancer(Duration.ofSeconds(30))) {
      List<String> props = GlobalNodes.properties(
          redis.uri(),
          2,
          rules,
          List.of(
              "reject-early=false",
              "max-concurrency=" + GLOBAL_LIMIT,
              "queue=fifo",
              "max-queue=20",
              "queue-timeout=5s"),
          options.serverProperties());
      DemoProcess first = DemoProcess.start(props, out.resolve("server-cluster-1.log"));
      DemoProcess second = null;
      long start = System.nanoTime();
      try (Watch watch = new Watch(balancer.client(), start)) {
        watch.watch(1, first.uri(), 0);
        watch.start();
        balancer.add(1, first.uri());
        AtomicInteger n = new AtomicInteger();
        // jobs of 300 ms waiting plus 20 ms of CPU: 4 permits serve about 12/s; 25/s overloads
        balancer.stream(
            25,
            options.seed(),
            () -> new Balancer.Call(
                "POST",
                "api/transcode?cpuMillis=20&waitMillis=300",
                Map.of("X-Host-Id", "host-" + n.getAndIncrement() % HOSTS)));
        balancer.stream(
            20,
            options.seed() + 1,
            () -> new Balancer.Call(
                "GET",
                "api/history/" + n.get() % 1000,
                Map.of("X-Account-Id", "account-" + n.getAndIncrement() % 50)));
        Thread.sleep(d.toMillis() / 2); // the first node alone, overloaded
        second = DemoProcess.start(props, out.resolve("server-cluster-2.log"));
        long healthy = System.nanoTime(); // the autoscaler sees /health answer and adds it
        balancer.add(2, second.uri());
        watch.watch(2, second.uri(), 0);
        Thread.sleep(1_000);
        redis.command("CONFIG", "RESETSTAT");
        long statsFrom = System.nanoTime();
        Thread.sleep(Math.max(2_000, d.toMillis() / 2 - 1_000)); // both nodes
        Map<String, Double> perNode = perNodePerSecond(
            redis.command("INFO", "commandstats"), (System.nanoTime() - statsFrom) / 1e9, 2);
        report.redisCommands(perNode);
        long kill = System.nanoTime();
        second.kill();
        watch.forget(2);
        double window = Math.max(10, Math.min(40, 2 * d.toSeconds()));
        awaitUpTo(window, () -> firstAtLimit(watch.readings(), 1, kill, GLOBAL_LIMIT) >= 0);
        Thread.sleep(500); // a last reading or two after the recovery
        balancer.stop(Duration.ofSeconds(10));
        List<Figures.InFlight> readings = watch.readings();
        report.statuses("scale-out and kill -9", balancer.requests());
        report.inFlight(readings, start, healthy, kill);
        if (parts.contains("scale-out")) {
          verdicts.addAll(Figures.scaleOut(
              readings, healthy, healthy, kill, GLOBAL_LIMIT, (GLOBAL_LIMIT + 1) / 2));
        }
        if (parts.contains("kill")) {
          verdicts.addAll(Figures.kill(readings, kill, GLOBAL_LIMIT, window));
          verdicts.add(Verdict.info("kill -9: Redis commands per node per second while both"
              + " nodes ran (INFO commandstats): " + TransitionsReport.commands(perNode)));
        }
      } finally {
        first.close();
        if (second != null) {
          second.close();
        }
      }
    }
    return verdicts;
  }

  /** {@code INFO commandstats} as calls per node per second, by command. */
  static Map<String, Double> perNodePerSecond(String info, double seconds, int nodes) {
    Map<String, Double> calls = new TreeMap<>();
    for (String line : info.split("\r?\n")) {
      // cmdstat_evalsha:calls=123,usec=...
      if (line.startsWith("cmdstat_") && line.contains("calls=")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        String count =
            line.substring(line.indexOf("calls=") + "calls=".length()).split(",")[0];
        if (!name.startsWith("config") && !name.startsWith("info")) { // the scenario's own
          calls.put(name, Long.parseLong(count) / seconds / nodes);
        }
      }
    }
    return calls;
  }

  // ---- (d) rolling restart

  private List<Verdict> rollingRestart(Options options, TransitionsReport report) throws Exception {
    Path out = options.out();
    Duration d = options.duration();
    int cores = Runtime.getRuntime().availableProcessors();
    int[] ports = {freePort(), freePort()};
    List<String> props = new ArrayList<>(List.of("sluice.shutdown.drain-timeout=10s"));
    props.addAll(options.serverProperties());
    DemoProcess[] nodes = new DemoProcess[2];
    List<String> events = new ArrayList<>();
    try (Balancer balancer = new Balancer(Duration.ofSeconds(60))) {
      for (int i = 0; i < 2; i++) {
        nodes[i] = start(props, ports[i], out.resolve("server-rolling-" + (i + 1) + ".log"));
        balancer.add(i + 1, nodes[i].uri());
      }
      long start = System.nanoTime();
      AtomicInteger n = new AtomicInteger();
      // the Monday load: 32 hosts push jobs at twice the two nodes' capacity, viewers browse
      double jobs = 2 * 2 * cores * 1000.0 / 200 / 2; // both nodes share the machine's cores
      balancer.stream(
          jobs,
          options.seed(),
          () -> new Balancer.Call(
              "POST",
              "api/transcode?cpuMillis=200",
              Map.of("X-Host-Id", "maintenance-host-" + n.getAndIncrement() % HOSTS)));
      balancer.stream(
          16,
          options.seed() + 1,
          () -> new Balancer.Call(
              "GET",
              "api/history/" + n.get() % 1000,
              Map.of("X-Account-Id", "viewer-" + n.getAndIncrement() % 8)));
      for (int i = 0; i < 2; i++) {
        Thread.sleep(d.toMillis() / 3);
        events.add(String.format(
            java.util.Locale.ROOT,
            "%.1f s: SIGTERM to node %d",
            (System.nanoTime() - start) / 1e9,
            i + 1));
        boolean exited = nodes[i].terminate(Duration.ofSeconds(40));
        events.add(String.format(
            java.util.Locale.ROOT,
            "%.1f s: node %d %s; starting it again",
            (System.nanoTime() - start) / 1e9,
            i + 1,
            exited ? "exited" : "did not exit within 40 s and was killed"));
        nodes[i] = start(props, ports[i], out.resolve("server-rolling-" + (i + 1) + "b.log"));
        events.add(String.format(
            java.util.Locale.ROOT,
            "%.1f s: node %d answers /health again",
            (System.nanoTime() - start) / 1e9,
            i + 1));
      }
      Thread.sleep(d.toMillis() / 3);
      balancer.stop(Duration.ofSeconds(30));
      report.events("rolling-restart", events);
      report.statuses("rolling-restart", balancer.requests());
      List<Verdict> verdicts = new ArrayList<>(Figures.rollingRestart(balancer.requests()));
      if (balancer.open() > 0) {
        verdicts.add(Verdict.missed("rolling restart: " + balancer.open()
            + " requests still without an answer 30 s after the load"));
      }
      return verdicts;
    } finally {
      for (DemoProcess node : nodes) {
        if (node != null) {
          node.close();
        }
      }
    }
  }

  private static DemoProcess start(List<String> props, int port, Path log)
      throws IOException, InterruptedException {
    List<String> withPort = new ArrayList<>(props);
    withPort.add("server.port=" + port);
    return DemoProcess.start(withPort, log);
  }

  // ---- (e) reload

  private List<Verdict> reload(Options options, TransitionsReport report) throws Exception {
    Path out = options.out();
    Path config = out.resolve("transitions-reload.properties");
    writeConfig(config, "fixed", "fifo");
    try (DemoProcess node = DemoProcess.start(
            options.serverProperties(),
            List.of("--config", config.toAbsolutePath().toString()),
            out.resolve("server-reload.log"));
        Balancer balancer = new Balancer(Duration.ofSeconds(90));
        Watch watch = new Watch(balancer.client(), System.nanoTime())) {
      balancer.add(1, node.uri());
      long before = decisions(listed(watch, node));
      List<CompletableFuture<Figures.Request>> calls = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        calls.add(balancer.send(new Balancer.Call(
            "POST", "api/transcode?cpuMillis=1&waitMillis=3000", Map.of("X-Host-Id", "long"))));
      }
      awaitUpTo(20, () -> read(watch, node).path("inFlight").asInt() == 2);
      for (int i = 0; i < WAITERS; i++) {
        calls.add(balancer.send(new Balancer.Call(
            "POST",
            "api/transcode?cpuMillis=1&waitMillis=50",
            Map.of("X-Host-Id", "host-" + i % 8))));
      }
      boolean queued = awaitUpTo(20, () -> read(watch, node).path("queued").asInt() == WAITERS);
      writeConfig(config, "cpu", "fair");
      boolean applied = awaitUpTo(15, () -> {
        JsonNode l = read(watch, node);
        return "cpu".equals(l.path("limitKind").asText())
            && "fair".equals(l.path("queueKind").asText());
      });
      int answered = 0;
      for (CompletableFuture<Figures.Request> call : calls) {
        Figures.Request r = call.get(120, TimeUnit.SECONDS);
        answered += r.unanswered() ? 0 : 1;
      }
      long after = decisions(listed(watch, node));
      report.figure("reload", "waiters queued when the file changed", queued ? WAITERS : -1);
      report.figure("reload", "requests sent", calls.size());
      report.figure("reload", "requests answered", answered);
      report.figure(
          "reload", "admissions and refusals the node counted", (double) (after - before));
      report.statuses("reload", balancer.requests());
      return Figures.reload(calls.size(), answered, after - before, applied && queued);
    }
  }

  /**
   * The node's limiter once {@code /sluice} lists it: a node just started, or swapping its limiter
   * on a reload, may answer a moment without it (seen on a loaded machine).
   */
  private static JsonNode listed(Watch watch, DemoProcess node)
      throws IOException, InterruptedException {
    awaitUpTo(20, () -> !read(watch, node).isMissingNode());
    return watch.limiter(node.uri()); // still missing: the error names what /sluice answered
  }

  private static JsonNode read(Watch watch, DemoProcess node) {
    try {
      return watch.limiter(node.uri());
    } catch (IOException e) {
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
  }

  /** The limiter's admissions plus its refusals of every kind, as counted by the node. */
  static long decisions(JsonNode limiter) {
    long sum = limiter.path("admitted").asLong();
    for (JsonNode count : limiter.path("rejected")) {
      sum += count.asLong();
    }
    return sum;
  }

  private static void writeConfig(Path file, String limit, String queue) throws IOException {
    Files.writeString(
        file,
        String.join(
            "\n",
            "sluice.reload-interval=1s",
            "sluice.limiters.transcode.limit=" + limit,
            "sluice.limiters.transcode.reject-early=false",
            "sluice.limiters.transcode.max-concurrency=2",
            "sluice.limiters.transcode.queue=" + queue,
            "sluice.limiters.transcode.max-queue=60",
            "sluice.limiters.transcode.max-queue-per-key=60",
            "sluice.limiters.transcode.queue-timeout=60s",
            ""));
  }

  // ---- helpers

  /** Polls {@code done} every 100 ms for up to {@code seconds}; whether it came true. */
  private static boolean awaitUpTo(double seconds, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() - deadline < 0) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(100); // waiting on other processes
    }
    return done.getAsBoolean();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  // ---- measuring: figures from what the run recorded (no I/O, tested on made-up data)

  /** Of the refusals, the share answered within {@link Figures#EARLY_MILLIS}; NaN without refusals. */
  static double earlyRefusals(List<Shot> shots) {
    List<Shot> refusals = shots.stream().filter(Shot::refusal).toList();
    if (refusals.isEmpty()) {
      return Double.NaN;
    }
    return refusals.stream().filter(s -> s.millis() <= Figures.EARLY_MILLIS).count()
        / (double) refusals.size();
  }

  /** 504s as a share of the refusals sent within {@code seconds} of {@code startNanos}. */
  static double timeoutShare(List<Shot> shots, long startNanos, double seconds) {
    List<Shot> refusals = shots.stream()
        .filter(Shot::refusal)
        .filter(s -> s.sentNanos() - startNanos <= seconds * 1e9)
        .toList();
    if (refusals.isEmpty()) {
      return Double.NaN;
    }
    return refusals.stream().filter(s -> s.status() == 504).count() / (double) refusals.size();
  }

  /** The mean CPU of the samples in (from, to] seconds; empty without one. */
  static OptionalDouble cpuBetween(List<Figures.Cpu> samples, double from, double to) {
    return samples.stream()
        .filter(c -> c.seconds() > from && c.seconds() <= to)
        .mapToDouble(Figures.Cpu::percent)
        .average();
  }

  /**
   * The Monday load's transcode tries as shots on node 1: an answer keeps its status; a reset is a
   * cut request, and a try without an answer within the client's timeout or still open when the
   * load stopped is a timeout.
   */
  static List<Shot> shots(List<MondayLoad.Try> tries) {
    return tries.stream()
        .map(t -> t.status() == MondayLoad.Try.NO_ANSWER
            ? Shot.failed(
                1,
                t.sentNanos(),
                t.endNanos(),
                t.outcome().equals("reset") ? Shot.Failure.CUT : Shot.Failure.TIMEOUT)
            : Shot.answered(
                1, t.sentNanos(), t.endNanos(), t.status(), t.retryAfter(), t.problem()))
        .toList();
  }

  /** The machine's CPU trace (one sample a second) as CPU readings at each sample's end. */
  static List<Figures.Cpu> machineCpu(CpuTrace trace) {
    return trace.samples().stream()
        .map(s -> new Figures.Cpu(s.endSecond(), s.percent()))
        .toList();
  }

  /** The first reading at or after {@code fromNanos} in which {@code node} runs a job; -1 if none. */
  static long firstRunning(List<Figures.InFlight> readings, int node, long fromNanos) {
    return readings.stream()
        .filter(r -> r.node() == node && r.nanos() >= fromNanos && r.inFlight() > 0)
        .mapToLong(Figures.InFlight::nanos)
        .min()
        .orElse(-1);
  }

  /**
   * The most jobs running in the cluster at once: readings are grouped by poll round (one
   * reading per node, taken one after another), each round's in-flight summed.
   */
  static int clusterPeak(List<Figures.InFlight> readings, long fromNanos, long toNanos, int nodes) {
    int peak = 0;
    int[] last = new int[nodes + 1];
    for (Figures.InFlight r : readings) {
      if (r.nanos() < fromNanos || r.nanos() > toNanos) {
        continue;
      }
      last[r.node()] = r.inFlight();
      int sum = 0;
      for (int n = 1; n <= nodes; n++) {
        sum += last[n];
      }
      peak = Math.max(peak, sum);
    }
    return peak;
  }

  /** The first reading after {@code fromNanos} in which {@code node} runs {@code limit} jobs. */
  static long firstAtLimit(List<Figures.InFlight> readings, int node, long fromNanos, int limit) {
    return readings.stream()
        .filter(r -> r.node() == node && r.nanos() >= fromNanos && r.inFlight() >= limit)
        .mapToLong(Figures.InFlight::nanos)
        .min()
        .orElse(-1);
  }
}
