package dev.sluice.loadtest;

import dev.sluice.loadtest.adaptive.AdaptiveVariant;
import dev.sluice.loadtest.adaptive.JobMix;
import dev.sluice.loadtest.engine.Door;
import dev.sluice.loadtest.overload.JobKind;
import dev.sluice.loadtest.overload.OverloadOptions;
import dev.sluice.time.DurationText;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The command line, validated: every error names the option and the value.
 *
 * @param target the service to load, or empty with {@code embedded}
 * @param embedded start the demo service in a child JVM on a free port
 * @param experiment what runs, chosen by {@code --scenario} (checked against these options)
 * @param duration how long arrivals are sent
 * @param rate offered transcode jobs per second, or empty for the scenario's default
 * @param cpuMillis CPU per transcode job
 * @param seed random seed of the arrivals and the jitter
 * @param out directory for report.html and summary.json
 * @param ab run limiter off, then on (the open-loop scenarios, with {@code embedded})
 * @param maxAttempts tries per request, the first included
 * @param drain how long to wait for open requests after the last arrival
 * @param serverProperties {@code key=value} passed to the embedded service as system properties
 * @param variants {@code NAME} or {@code NAME:key=value}: the set-ups greedy-host and priority compare
 * @param mixes job mixes of {@code --scenario adaptive}
 * @param overloads offered loads of {@code --scenario adaptive}, as multiples of the capacity
 * @param variantList {@code --variants} as given: the variants of {@code --scenario adaptive} or
 *     {@code overload} or {@code overload} (each checks the names it knows), or empty for the
 *     scenario's own defaults
 * @param overload the sweep points, job kinds and step test of {@code --scenario overload}
 * @param beforeJar {@code --scenario overhead}: an earlier build's loadtest jar whose Sluice
 *     variants run beside this build's in the same rounds, or empty
 * @param door the door the transcode jobs of the open-loop scenarios and the overload sweep go
 *     through ({@code --door})
 * @param grpcPort {@code --grpc-port}: the gRPC door's port, or 0 (with {@code --embedded}: a free
 *     one)
 */
public record Options(
    Optional<URI> target,
    boolean embedded,
    Experiment experiment,
    Duration duration,
    Optional<Double> rate,
    int cpuMillis,
    long seed,
    Path out,
    boolean ab,
    int maxAttempts,
    Duration drain,
    List<String> serverProperties,
    List<String> variants,
    List<JobMix> mixes,
    List<Double> overloads,
    Optional<String> variantList,
    OverloadOptions overload,
    Optional<Path> beforeJar,
    Door door,
    int grpcPort) {

  static final String USAGE = String.join(
      "\n",
      "usage: java -jar loadtest/target/loadtest.jar (--target URL | --embedded) [options]",
      "  --target URL         the service, e.g. http://localhost:7070",
      "  --embedded           start the demo service in a child JVM on a free port",
      "  --port N             with --embedded: the service's port instead of a free one",
      "                       (not with --scenario overhead, which starts several)",
      "  --scenario NAME      monday-maintenance (default) | steady | spike | greedy-host | priority",
      "                       | adaptive | overload | ingest | monday | overhead | soak",
      "                       | transitions | hostile-keys | jepsen | envoy-ratelimit",
      "                       monday: the Monday window with real ffmpeg (needs --embedded and",
      "                       ffmpeg on PATH): --variants none,static,static-N,cpu,cpu+cost on",
      "                       fresh demos, --duration per variant (default 10m)",
      "                       ingest: naive against paced client, 10,000 records into 2,000/s;",
      "                       needs --embedded; --rate R sets the service's limit, records = 5 x R",
      "                       overhead: server CPU and bytes allocated per request (and",
      "                       throughput) of GET /api/ping with no limiter, Sluice (limiter, IP",
      "                       rate rule), Javalin RateLimitPlugin and Jetty QoSHandler, driven by",
      "                       wrk when on PATH (needs --embedded; --duration is the measured time",
      "                       per service, in 7 rounds)",
      "                       soak: two services on one redis-server (from PATH) under a mixed",
      "                       global load, sampled every 10 s; heap, thread and Redis trends",
      "                       (needs --embedded; --duration default 15m)",
      "                       transitions: cold start, scale-out, kill -9, rolling restart and",
      "                       a reload with 40 waiters, on fresh services (needs --embedded and",
      "                       redis-server on PATH; --duration per part, default 20s)",
      "                       hostile-keys: a million distinct IPs, accounts and API keys as",
      "                       fast as the machine sends, against IP, account and header rules",
      "                       of one service; heap after GC, key tables, known actors' p99 and",
      "                       permits (needs --embedded; --duration caps the flood, default 5m)",
      "                       jepsen: two services on one redis-server behind a fault proxy,",
      "                       a random schedule of faults from --seed (Redis reset, blackhole,",
      "                       delay, loss, empty restart, SIGSTOP, FLUSHALL; a node paused or",
      "                       on a false clock), the whole history checked (needs --embedded;",
      "                       --duration default 5m)",
      "                       envoy-ratelimit: Envoy's rate-limit service (ratelimit-service),",
      "                       two replicas on one redis-server (from PATH): RLS latency at",
      "                       --rate decisions/s (default 5000, open loop), decisions/s at 16 and",
      "                       64 in flight beside redis-server's own, the exact limit per window;",
      "                       RLQS shares of three proxies, a replica killed (needs --embedded;",
      "                       --duration the latency run, the other parts a share; default 20s)",
      "  --duration D         how long to send, e.g. 60s, 2m, PT1M (default 60s)",
      "  --rate R             offered transcode jobs/s (default: the scenario's multiple of capacity)",
      "  --cpu-millis N       CPU per transcode job (default 200)",
      "  --seed N             random seed (default 42)",
      "  --out DIR            where report.html and summary.json go (default loadtest-report)",
      "  --ab                 monday-maintenance, steady, spike: run with the limiter off, then on,",
      "                       side by side (needs --embedded)",
      "  --door D             monday-maintenance, steady, spike, overload: http (default) or",
      "                       grpc: the transcode jobs through the demo's gRPC door",
      "                       (demo.grpc.port), transcode.Transcoder/Transcode; the other",
      "                       requests stay HTTP (overload: also the service's thread count",
      "                       and a retrying client against the pushback)",
      "  --grpc-port N        with --door grpc: the door's port (with --target: required; with",
      "                       --embedded: instead of a free one)",
      "  --overhead           the same as --scenario overhead (the older spelling, still accepted)",
      "  --max-attempts N     tries per request, the first included (default 3)",
      "  --drain D            wait for open requests after the last send (default 30s)",
      "  --server-property K=V  system property for the embedded service (repeatable)",
      "  --variant NAME[:K=V] greedy-host, priority: compare this set-up (fifo, fair, classes,",
      "                       netflix-partitioned, or a new name); :K=V adds a property to it",
      "                       (repeatable; default: the scenario's own variants)",
      "  --scenario overload  the overload sweep: offered load at --points multiples of the",
      "                       capacity measured unloaded, for --jobs, each --variants variant",
      "                       on a fresh demo (needs --embedded; --duration per point, default 20s)",
      "  --mix M              adaptive: cpu | sizes | io | all, or a comma list (default all)",
      "  --overload X         adaptive: offered load as multiples of capacity (default 2,5)",
      "  --variants V         adaptive: comma list of fixed, cpu, cpu-machine, latency,",
      "                       netflix-gradient2, netflix-vegas",
      "                       (default " + AdaptiveVariant.DEFAULT_NAMES + ")",
      "                       overload: comma list of fifo, standing, cost-declared,",
      "                       cost-learned, netflix-gradient2, netflix-vegas (default per job",
      "                       kind: fifo,standing,netflix-gradient2 for one size,",
      "                       fifo,cost-declared,cost-learned,netflix-gradient2 for sizes)",
      "                       overhead: comma list of sluice-limiter, sluice-rate,",
      "                       ratelimitplugin, qos, javalin-handlers (default all; none is",
      "                       always measured)",
      "                       transitions: comma list of cold-start, scale-out, kill,",
      "                       rolling-restart, reload (default all)",
      "                       jepsen: comma list of fault kinds: reset, blackhole, delay,",
      "                       loss, restart-empty, redis-pause, flushall, node-pause, clock",
      "                       (default all)",
      "  --points X           overload: multiples of the capacity, a comma list or none",
      "                       (default 1,2,5,10)",
      "  --jobs K             overload: comma list of short (20 ms), long (200 ms), sizes",
      "                       (both, half each), wide (50 and 800 ms, half each), long400",
      "                       (400 ms) (default short,long,sizes,wide)",
      "  --step               overload: also run the step test (1x, 10x, 1x, a third each)",
      "  --before-jar JAR     overhead: also run each Sluice variant from JAR, an earlier",
      "                       build's loadtest.jar, in the same rounds (NAME@before)",
      "  --help               this text");

  /** Whether the arguments ask for the usage ({@code --help} or {@code -h}) instead of a run. */
  public static boolean wantsHelp(String... args) {
    return java.util.Arrays.stream(args).anyMatch(a -> a.equals("--help") || a.equals("-h"));
  }

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException naming the option and the bad value
   */
  public static Options parse(String... args) {
    Optional<URI> target = Optional.empty();
    boolean embedded = false;
    Experiment experiment = null;
    String chosenBy = null;
    Duration duration = Duration.ofSeconds(60);
    Optional<Double> rate = Optional.empty();
    int cpuMillis = 200;
    long seed = 42;
    Path out = Path.of("loadtest-report");
    boolean ab = false;
    int maxAttempts = 3;
    Duration drain = Duration.ofSeconds(30);
    List<String> serverProperties = new ArrayList<>();
    List<String> variants = new ArrayList<>();
    List<JobMix> mixes = List.of(JobMix.values());
    List<Double> overloads = List.of(2.0, 5.0);
    Optional<String> variantList = Optional.empty();
    OverloadOptions overload = OverloadOptions.DEFAULTS;
    Optional<Path> beforeJar = Optional.empty();
    Door door = Door.HTTP;
    int grpcPort = 0;
    int port = 0;
    Set<String> given = new LinkedHashSet<>();
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      given.add(option);
      switch (option) {
        case "--embedded" -> embedded = true;
        case "--ab" -> ab = true;
        case "--target" -> target = Optional.of(uri(option, value(args, ++i, option)));
        case "--scenario", "--overhead" -> {
          // --overhead is the older spelling of --scenario overhead, kept so existing commands run
          Experiment named = Experiments.named(
              option.equals("--overhead") ? "overhead" : value(args, ++i, option));
          String choice = option.equals("--overhead")
              ? "--overhead (--scenario overhead)"
              : "--scenario " + named.id();
          if (experiment != null && experiment != named) {
            throw new IllegalArgumentException(
                "give one scenario, not both " + chosenBy + " and " + choice);
          }
          experiment = named;
          chosenBy = choice;
        }
        case "--duration" -> duration = duration(option, value(args, ++i, option));
        case "--drain" -> drain = duration(option, value(args, ++i, option));
        case "--rate" -> rate = Optional.of(positive(option, value(args, ++i, option)));
        case "--cpu-millis" ->
          cpuMillis = (int) integer(option, value(args, ++i, option), 1, 10_000);
        case "--seed" ->
          seed = integer(option, value(args, ++i, option), Long.MIN_VALUE, Long.MAX_VALUE);
        case "--out" -> out = Path.of(value(args, ++i, option));
        case "--max-attempts" ->
          maxAttempts = (int) integer(option, value(args, ++i, option), 1, 20);
        case "--port" -> {
          // handed to the embedded service as server.port (DemoProcess reads it from there)
          port = (int) integer(option, value(args, ++i, option), 1, 65_535);
          serverProperties.add("server.port=" + port);
        }
        case "--server-property" -> {
          String property = value(args, ++i, option);
          if (property.indexOf('=') < 1) {
            throw new IllegalArgumentException(
                "--server-property must look like key=value but was '" + property + "'");
          }
          serverProperties.add(property);
        }
        case "--variant" -> variants.add(value(args, ++i, option));
        case "--mix" -> mixes = JobMix.parse(option, value(args, ++i, option));
        case "--overload" -> overloads = overloads(option, value(args, ++i, option));
        // checked by the scenario that reads it (adaptive and overload know different names)
        case "--variants" -> variantList = Optional.of(value(args, ++i, option));
        case "--points" ->
          overload = overload.withPoints(OverloadOptions.points(option, value(args, ++i, option)));
        case "--jobs" ->
          overload = overload.withJobs(JobKind.parse(option, value(args, ++i, option)));
        case "--step" -> overload = overload.withStep();
        case "--before-jar" -> beforeJar = Optional.of(Path.of(value(args, ++i, option)));
        case "--door" -> door = Door.parse(option, value(args, ++i, option));
        case "--grpc-port" -> grpcPort = (int) integer(option, value(args, ++i, option), 1, 65_535);
        default -> throw new IllegalArgumentException("unknown option '" + option + "'\n" + USAGE);
      }
    }
    if (target.isPresent() == embedded) {
      throw new IllegalArgumentException(
          "give exactly one of --target URL and --embedded\n" + USAGE);
    }
    if (experiment == null) {
      experiment = Experiments.DEFAULT;
    }
    if (!given.contains("--duration")) {
      duration = experiment.defaultDuration();
    }
    for (String option : given) {
      List<String> readers = Experiments.reading(option);
      if (!readers.isEmpty() && !readers.contains(experiment.id())) {
        throw new IllegalArgumentException(option + " is for --scenario "
            + String.join(", ", readers) + ", not " + experiment.id());
      }
    }
    if (port != 0 && !embedded) {
      throw new IllegalArgumentException(
          "--port sets the port of the --embedded service; with --target the URL has the port");
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException("--duration must be > 0 but was " + duration);
    }
    Options options = new Options(
        target,
        embedded,
        experiment,
        duration,
        rate,
        cpuMillis,
        seed,
        out,
        ab,
        maxAttempts,
        drain,
        List.copyOf(serverProperties),
        List.copyOf(variants),
        mixes,
        overloads,
        variantList,
        overload,
        beforeJar,
        door,
        grpcPort);
    experiment.check(options);
    return options;
  }

  /**
   * The command line that runs {@code scenario} again on a demo it starts: its {@code --duration},
   * then {@code more} (the scenario's own options), {@code --variants} as given, every {@code
   * --server-property}, the seed and {@code --out}.
   */
  public String replay(String scenario, String more) {
    StringBuilder c = new StringBuilder("java -jar loadtest/target/loadtest.jar --embedded")
        .append(" --scenario ")
        .append(scenario)
        .append(" --duration ")
        .append(duration.toSeconds())
        .append('s')
        .append(more);
    variantList.ifPresent(v -> c.append(" --variants ").append(v));
    serverProperties.forEach(p -> c.append(" --server-property ").append(p));
    return c.append(" --seed ").append(seed).append(" --out ").append(out).toString();
  }

  /** The variants of {@code --scenario adaptive}: {@code --variants}, or its default list. */
  public String adaptiveVariants() {
    return variantList.orElse(AdaptiveVariant.DEFAULT_NAMES);
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static URI uri(String option, String value) {
    try {
      URI uri = URI.create(value.endsWith("/") ? value : value + "/");
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException("not http(s)");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          option + " must be an http(s) URL but was '" + value + "'");
    }
  }

  /** 60s, 500ms, 2m, 1h, PT1M (Sluice's duration text), or plain seconds. */
  static Duration duration(String option, String value) {
    String v = value.trim();
    try {
      return v.chars().allMatch(Character::isDigit) && !v.isEmpty()
          ? Duration.ofSeconds(Long.parseLong(v))
          : DurationText.parse(v);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          option + " must be a duration like 60s, 500ms, 2m or PT1M but was '" + value + "'");
    }
  }

  private static List<Double> overloads(String option, String value) {
    List<Double> list = new ArrayList<>();
    for (String part : value.split(",")) {
      list.add(positive(option, part.trim()));
    }
    return List.copyOf(list);
  }

  private static double positive(String option, String value) {
    try {
      double d = Double.parseDouble(value);
      if (d > 0 && Double.isFinite(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(option + " must be a number > 0 but was '" + value + "'");
  }

  private static long integer(String option, String value, long min, long max) {
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(
        option + " must be an integer in [" + min + ", " + max + "] but was '" + value + "'");
  }
}
