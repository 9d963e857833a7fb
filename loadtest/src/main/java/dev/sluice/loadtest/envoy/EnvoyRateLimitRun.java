package dev.sluice.loadtest.envoy;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.soak.SoakRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --scenario envoy-ratelimit}: the rate-limit service for Envoy ({@code ratelimit-service})
 * measured against its targets, on its own {@code redis-server} (free port, from PATH) and two
 * replicas in child JVMs. RLS: latency at a fixed rate (open loop, from each call's intended send
 * time) and decisions per second at 16 and 64 calls in flight, beside two yardsticks (a service
 * whose decision is the same script call alone, and an empty one) and what Redis answers to the
 * same script called directly, and exactly the limit admitted in every window by two replicas (by
 * the callers' answers, and by the replicas' own counts, read from their admissions files). RLQS:
 * three simulated proxies sharing one bucket through both replicas, their demands moved, then one
 * replica killed. {@code --duration} is the length of the latency run; the other parts take a share
 * of it (see the loadtest README).
 */
public final class EnvoyRateLimitRun implements Experiment {

  /** The latency target's rate, decisions per second ({@code --rate} sets another). */
  static final double TARGET_RATE = 5_000;
  /** The RLS descriptor of the latency and throughput runs: this many users, never refused. */
  static final int USERS = 1_000;

  static final long UNREFUSED_PER_SECOND = 1_000_000_000L;
  /** The exact-limit part's limit per one-second window, and its callers per replica. */
  static final long WINDOW_LIMIT = 100;

  static final int CALLERS_PER_REPLICA = 16;
  static final List<Integer> IN_FLIGHT = List.of(16, 64);
  /** The RLQS bucket's quota per second, and the proxies' demands as multiples of it. */
  static final long QUOTA = 300;

  static final List<Double> DEMANDS = List.of(0.2, 0.6, 1.8);
  static final Duration REPORTING_INTERVAL = Duration.ofSeconds(1);
  /** The shortest RLQS phase: room for the assignments to settle and be judged. */
  static final Duration SHORTEST_PHASE = Duration.ofSeconds(6);

  static final Duration SHORTEST_WINDOW_PART = Duration.ofSeconds(4);

  @Override
  public String id() {
    return "envoy-ratelimit";
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofSeconds(20);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException("--scenario envoy-ratelimit starts its own redis-server"
          + " and rate-limit services, so it needs --embedded");
    }
  }

  /** The parts' lengths, from {@code --duration}. */
  record Durations(
      Duration latency,
      Duration latencyWarmup,
      Duration closedLoop,
      Duration closedLoopWarmup,
      Duration window,
      Duration quotaPhase) {
    static Durations of(Duration d) {
      Duration half = d.dividedBy(2);
      return new Durations(
          d,
          // twice the run, climbing to the rate in its first half (RlsLoad.warmUp): on two cores
          // shared with the load and Redis, a replica's decision path (grpc-java, protobuf,
          // Lettuce, the store) compiles for tens of seconds; after a 5 s warm-up at the full rate
          // the first second's p50 was 240 ms, after 20 s still 7 ms, and after 40 s the calls
          // piled up while it compiled still filled its heap
          d.multipliedBy(2),
          half,
          d.dividedBy(8),
          max(half, SHORTEST_WINDOW_PART),
          max(half, SHORTEST_PHASE));
    }

    private static Duration max(Duration a, Duration b) {
      return a.compareTo(b) >= 0 ? a : b;
    }
  }

  /** The descriptor file both replicas read. */
  static String descriptors() {
    return "domain: " + RlsLoad.DOMAIN + "\n"
        + "descriptors:\n"
        + "  # latency and throughput: one counter per user, never refused\n"
        + "  - key: user\n"
        + "    rate_limit:\n"
        + "      unit: second\n"
        + "      requests_per_unit: " + UNREFUSED_PER_SECOND + "\n"
        + "  # the exact-limit part: one counter that both replicas fill every second\n"
        + "  - key: window\n"
        + "    rate_limit:\n"
        + "      unit: second\n"
        + "      requests_per_unit: " + WINDOW_LIMIT + "\n";
  }

  @Override
  public Path run(Options options) throws Exception {
    Path out = options.out();
    Durations d = Durations.of(options.duration());
    double rate = options.rate().orElse(TARGET_RATE);
    EnvoyReport report = new EnvoyReport(options, d, rate, LoadAverage.read());
    Path yaml = Files.writeString(out.resolve("envoy-ratelimit.yaml"), descriptors());
    try (SoakRedis redis = SoakRedis.start(out.resolve("envoy-redis.log"))) {
      List<String> properties = List.of(
          "sluice.ratelimit-service.config=" + yaml.toAbsolutePath(),
          "sluice.redis.uri=" + redis.uri(),
          // a decision that ran out of this bound would be made on the replica's local share:
          // not the shared count this scenario measures
          "sluice.redis.timeout=2s",
          "sluice.ratelimit-service.quota.buckets.shared.match=name=shared",
          "sluice.ratelimit-service.quota.buckets.shared.rate=" + QUOTA + "/1s");
      List<ServiceReplica> replicas = new ArrayList<>();
      long[] windowPart = new long[2]; // the exact-limit part's span, epoch nanoseconds
      try {
        replicas.add(ServiceReplica.start(out, "replica-1", properties));
        replicas.add(ServiceReplica.start(out, "replica-2", properties));
        System.out.println("envoy-ratelimit: redis-server on " + redis.port() + ", replicas on "
            + replicas.get(0).port() + " and " + replicas.get(1).port());
        ServiceReplica first = replicas.get(0);
        report.part("latency", () -> {
          RlsLoad.warmUp(first.channel(), rate, d.latencyWarmup(), RlsLoad::userOf);
          RlsLoad.OpenLoop service =
              RlsLoad.openLoop(first.channel(), rate, d.latency(), RlsLoad::userOf);
          // the same calls at the same rate to a service whose decision is the store's script
          // call alone (the least a service sharing its counts through Redis does), then to one
          // that decides nothing: the tail this machine gives any gRPC service while the
          // generator shares its cores
          RlsLoad.OpenLoop scriptOnly;
          try (ServiceReplica bare =
              ServiceReplica.scriptOnly(out, "script-only-service-latency", redis.port())) {
            RlsLoad.warmUp(bare.channel(), rate, d.latencyWarmup(), RlsLoad::userOf);
            scriptOnly = RlsLoad.openLoop(bare.channel(), rate, d.latency(), RlsLoad::userOf);
          }
          try (ServiceReplica empty = ServiceReplica.empty(out, "empty-service-latency")) {
            RlsLoad.warmUp(empty.channel(), rate, d.latencyWarmup(), RlsLoad::userOf);
            report.latency(
                service,
                scriptOnly,
                RlsLoad.openLoop(empty.channel(), rate, d.latency(), RlsLoad::userOf));
          }
        });
        report.part("throughput", () -> {
          try (RedisCeiling ceiling = new RedisCeiling(redis.port());
              ServiceReplica bare =
                  ServiceReplica.scriptOnly(out, "script-only-service", redis.port());
              ServiceReplica empty = ServiceReplica.empty(out, "empty-service")) {
            // the replica was warmed by the latency part; the yardsticks get a warm-up too
            for (ServiceReplica yardstick : List.of(bare, empty)) {
              RlsLoad.closedLoop(
                  yardstick.channel(),
                  IN_FLIGHT.get(0),
                  d.latencyWarmup(),
                  d.closedLoopWarmup(),
                  RlsLoad::userOf);
            }
            for (int inFlight : IN_FLIGHT) {
              RlsLoad.ClosedLoop service = RlsLoad.closedLoop(
                  first.channel(), inFlight, d.closedLoopWarmup(), d.closedLoop(), RlsLoad::userOf);
              RlsLoad.ClosedLoop direct =
                  ceiling.closedLoop(inFlight, d.closedLoopWarmup(), d.closedLoop());
              RlsLoad.ClosedLoop scriptOnly = RlsLoad.closedLoop(
                  bare.channel(), inFlight, d.closedLoopWarmup(), d.closedLoop(), RlsLoad::userOf);
              RlsLoad.ClosedLoop transport = RlsLoad.closedLoop(
                  empty.channel(), inFlight, d.closedLoopWarmup(), d.closedLoop(), RlsLoad::userOf);
              report.throughput(service, direct, scriptOnly, transport);
            }
          }
        });
        report.part("exact limit", () -> {
          AtomicLong errors = new AtomicLong();
          long from = RlsLoad.epochNanos();
          List<RlsLoad.Decision> decisions = RlsLoad.hammer(
              replicas.stream().map(ServiceReplica::channel).toList(),
              CALLERS_PER_REPLICA,
              d.window(),
              RlsLoad.request("window", "shared"),
              t -> errors.incrementAndGet());
          long to = RlsLoad.epochNanos();
          windowPart[0] = from;
          windowPart[1] = to;
          report.window(
              WindowCheck.judge(decisions, WINDOW_LIMIT, from, to), decisions.size(), errors.get());
        });
        report.part("rlqs", () -> {
          List<Double> before = new ArrayList<>();
          List<Double> after = new ArrayList<>();
          for (int i = 0; i < DEMANDS.size(); i++) {
            before.add(DEMANDS.get(i) * QUOTA);
            after.add(DEMANDS.get(DEMANDS.size() - 1 - i) * QUOTA);
          }
          report.quota(QuotaRun.run(
              replicas,
              new QuotaRun.Settings(QUOTA, REPORTING_INTERVAL, d.quotaPhase(), before, after)));
        });
      } finally {
        replicas.forEach(ServiceReplica::close);
      }
      if (windowPart[1] != 0) {
        // read once the replicas have stopped: each has written every window it held by then (the
        // one killed in the RLQS part wrote the exact-limit part's windows seconds before)
        report.part(
            "exact limit, the replicas' own counts",
            () -> report.serverWindows(ServerWindows.read(
                replicas.stream().map(ServiceReplica::admissions).toList(),
                RlsLoad.DOMAIN + "_window_shared_",
                WINDOW_LIMIT,
                windowPart[0],
                windowPart[1])));
      }
    }
    report.loadAfter(LoadAverage.read());
    return report.write(out);
  }
}
