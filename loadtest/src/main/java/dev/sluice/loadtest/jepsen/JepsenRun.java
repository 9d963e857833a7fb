package dev.sluice.loadtest.jepsen;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.soak.GlobalNodes;
import dev.sluice.loadtest.soak.SoakRedis;
import dev.sluice.testing.FaultProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code --scenario jepsen}: limiter-redis's nemesis on real processes, for as long as asked. It
 * starts a {@code redis-server}, the TCP fault proxy in front of it and two demo nodes on the proxy
 * (a global per-account token bucket on the history lookups, a global concurrency limit on the
 * transcode jobs), drives hot accounts, a calm account and jobs at both ({@link JepsenLoad}), runs
 * the seed's schedule of faults ({@link Schedule}, {@link Nemesis}), and checks the whole history
 * afterwards ({@link JepsenCheck}).
 */
public final class JepsenRun implements Experiment {

  static final int NODES = 2;

  /** The global limit of the transcode jobs (each node's share: 2). */
  static final int JOB_LIMIT = 4;

  /** The check of this scenario's set-up: the rule of {@link GlobalNodes}, the limit above. */
  static final JepsenCheck CHECK = new JepsenCheck(
      GlobalNodes.RULE_PER_SECOND,
      Duration.ofSeconds(1),
      GlobalNodes.RULE_PER_SECOND,
      JOB_LIMIT,
      NODES,
      Duration.ofMillis(JepsenLoad.JOB_WAIT_MILLIS + JepsenLoad.JOB_CPU_MILLIS),
      JepsenLoad.CALM);

  /** How long a node or Redis may take to be back after a fault heals before the run says so. */
  private static final Duration BACK_WITHIN = Duration.ofSeconds(60);

  @Override
  public String id() {
    return "jepsen";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--variants");
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofMinutes(5);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException("--scenario jepsen starts its Redis, its fault proxy and"
          + " its two services itself, so it needs --embedded");
    }
    Duration shortest = Schedule.WARM_UP.plus(Schedule.TAIL).plusSeconds(10);
    if (options.duration().compareTo(shortest) < 0) {
      throw new IllegalArgumentException("--duration for --scenario jepsen must be at least "
          + shortest.toSeconds() + "s (a warm-up, a fault and a tail) but was "
          + options.duration().toSeconds() + "s");
    }
    kinds(options);
  }

  /** {@code --variants}: a comma list of fault kinds, or every kind. */
  static List<FaultKind> kinds(Options options) {
    return options
        .variantList()
        .map(v -> FaultKind.parse("--variants", v))
        .orElse(List.of(FaultKind.values()));
  }

  /** The plan of this run: a function of {@code --seed}, {@code --duration} and the kinds. */
  static Schedule schedule(Options options) {
    return Schedule.of(options.seed(), options.duration(), kinds(options));
  }

  @Override
  public Path run(Options options) throws Exception {
    Path out = options.out();
    Schedule schedule = schedule(options);
    System.out.println("jepsen: seed " + schedule.seed() + ", schedule: " + schedule.describe());
    JepsenReport report = new JepsenReport(options, schedule, LoadAverage.read());
    Path rules = GlobalNodes.writeRules(out.resolve("jepsen-rules.yaml"));
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    DemoProcess[] nodes = new DemoProcess[NODES];
    try (SoakRedis redis = SoakRedis.start(out.resolve("redis.log"));
        FaultProxy proxy = new FaultProxy(redis.port())) {
      List<List<String>> properties = new ArrayList<>();
      for (int n = 0; n < NODES; n++) {
        List<String> p = new ArrayList<>(GlobalNodes.properties(
            proxy.uri().toString(),
            NODES,
            rules,
            List.of(
                "reject-early=false",
                "max-concurrency=" + JOB_LIMIT,
                "queue=fifo",
                "max-queue=4",
                "queue-timeout=2s"),
            options.serverProperties()));
        nodes[n] = DemoProcess.start(p, out.resolve("server-" + (n + 1) + ".log"));
        // a restart (a clock fault) comes back on the same port, where the load sends
        p.add("server.port=" + nodes[n].uri().getPort());
        properties.add(List.copyOf(p));
      }
      List<URI> uris = Arrays.stream(nodes).map(DemoProcess::uri).toList();
      long origin = System.nanoTime();
      try (NodeWatch watch = new NodeWatch(uris, http, origin);
          JepsenLoad load = new JepsenLoad(uris, http, origin)) {
        if (!watch.awaitAllUp(BACK_WITHIN)) {
          throw new IOException("the nodes were not on Redis within " + BACK_WITHIN);
        }
        load.start();
        Nemesis nemesis = new Nemesis(redis, proxy, nodes, properties, out);
        List<Injected> happened = new ArrayList<>();
        try {
          follow(schedule, nemesis, watch, origin, options.duration(), happened);
          pauseUntil(origin + options.duration().toNanos());
        } catch (IOException e) {
          // the history so far is still checked; the report says where and why it stopped
          report.stopped(e.getMessage());
        }
        load.stop();
        long drainUntil = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (load.open() > 0 && System.nanoTime() - drainUntil < 0) {
          LockSupport.parkNanos(50_000_000L); // the last answers come in
        }
        JepsenCheck.Findings findings =
            CHECK.check(load.answers(), load.jobs(), happened, watch.slowCalls());
        report.result(happened, findings, load.outcomes(), load.open());
      }
    } finally {
      for (DemoProcess node : nodes) {
        if (node != null) {
          node.close();
        }
      }
    }
    report.loadAfter(LoadAverage.read());
    return report.write(out);
  }

  /**
   * Runs the schedule in order until the run's time leaves no room for the next fault, adding
   * each fault as it happened to {@code happened} (a clock fault without libfaketime, or one the
   * time was up for, as not run, saying why).
   *
   * @throws IOException when the nodes are not back on Redis after a fault, or a process does not
   *     do what the nemesis tells it
   */
  private static void follow(
      Schedule schedule,
      Nemesis nemesis,
      NodeWatch watch,
      long origin,
      Duration duration,
      List<Injected> happened)
      throws IOException, InterruptedException {
    long end = origin + duration.minus(Schedule.TAIL).toNanos();
    pauseUntil(origin + Schedule.WARM_UP.toNanos());
    int number = 0;
    for (Schedule.Planned fault : schedule.faults()) {
      number++;
      long from = System.nanoTime();
      if (from - end >= 0) {
        happened.add(Injected.skipped(number, fault, from - origin, "the run's time was up"));
        continue;
      }
      if (fault.kind() == FaultKind.CLOCK && Nemesis.libfaketime().isEmpty()) {
        happened.add(Injected.skipped(
            number,
            fault,
            from - origin,
            "libfaketime is not installed (apt-get install faketime)"));
        continue;
      }
      System.out.printf(
          "jepsen: %.1f s: #%d %s%n", (from - origin) / 1e9, number, fault.describe());
      nemesis.inject(fault);
      if (fault.kind() != FaultKind.FLUSHALL) {
        pauseUntil(System.nanoTime() + fault.lasts().toNanos());
      }
      nemesis.heal(fault);
      long healed = System.nanoTime();
      boolean back = watch.awaitAllUp(BACK_WITHIN);
      long settled = System.nanoTime() + JepsenCheck.SETTLE.toNanos();
      happened.add(
          new Injected(number, fault, from - origin, healed - origin, settled - origin, ""));
      if (!back) {
        throw new IOException("the nodes were not back on Redis within " + BACK_WITHIN.toSeconds()
            + " s after #" + number + " " + fault.describe() + " was healed");
      }
      pauseUntil(settled + fault.quietAfter().toNanos());
    }
  }

  /** Lets the load run until {@code nanos} (the schedule's own pace, not a wait for a condition). */
  private static void pauseUntil(long nanos) {
    for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }
}
