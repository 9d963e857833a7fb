package dev.sluice.demo;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The service's configuration, read by limiter-config's loader ({@link SluiceProperties}), so the
 * demo's own keys ({@code server.port}, {@code demo.*}) are layered exactly as the plugin's: {@code
 * application.properties} in the jar, then the file given with {@code --config FILE} (the plugin's
 * properties file: {@code sluice.reload-interval} re-reads it), then environment variables, then
 * {@code -D} system properties; a later layer wins.
 *
 * <p>An environment variable overrides a key in upper case with dots and dashes as underscores
 * ({@code SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY=2}; for the demo's keys, keys one of the files
 * names); {@code PORT} sets {@code server.port}. After layering, at start and on every reload
 * ({@link #derive}): an empty value unsets the key ({@code -Dsluice.limiters.transcode.queue-key=}),
 * and the value {@code auto} of {@code sluice.limiters.transcode.max-concurrency} is replaced by
 * {@link #autoConcurrency}.
 */
public final class DemoSettings {

  static final String PORT = "server.port";
  static final String MAX_CPU_MILLIS = "demo.max-cpu-millis";
  static final String MAX_WAIT_MILLIS = "demo.max-wait-millis";
  static final String FRAMES_PER_MILLI = "demo.frames-per-milli";
  static final String CPU_TARGET = "demo.cpu-target";
  static final String GRPC_PORT = "demo.grpc.port";
  static final String TRANSCODE_CONCURRENCY = "sluice.limiters.transcode.max-concurrency";
  static final String TRANSCODE_LIMIT = "sluice.limiters.transcode.limit";
  static final String TRANSCODE_TARGET_CPU = "sluice.limiters.transcode.target-cpu";
  static final String RULES_FILE = "sluice.rules.file";

  /**
   * Every {@code demo.*} key the service reads: any other is refused at start (a typo such as
   * {@code demo.engin} would otherwise run the default engine), as the plugin refuses an unknown
   * {@code sluice.*} key.
   */
  static final Set<String> KEYS = Set.of(
      MAX_CPU_MILLIS,
      MAX_WAIT_MILLIS,
      FRAMES_PER_MILLI,
      CPU_TARGET,
      GRPC_PORT,
      Engine.KEY,
      FfmpegSettings.THREADS,
      FfmpegSettings.MAX_BYTES,
      FfmpegSettings.MAX_SECONDS,
      FfmpegSettings.TIMEOUT,
      FfmpegSettings.PRESET,
      FfmpegSettings.TEMP_DIR,
      FfmpegSettings.COST_HEADER,
      LimiterPeer.KEY,
      LimiterPeer.HEADER,
      LimiterPeer.PARTITIONS,
      LimiterPeer.LIMIT,
      OverheadPeer.KEY);

  private final SluiceProperties properties;

  private DemoSettings(SluiceProperties properties) {
    this.properties = properties;
  }

  /** The real arguments, environment and system properties; {@code cores} from the JVM. */
  public static DemoSettings load(String[] args) {
    return load(
        args, System.getenv(), systemProperties(), Runtime.getRuntime().availableProcessors());
  }

  /**
   * @throws IllegalArgumentException naming the option, key or file that is wrong
   */
  static DemoSettings load(
      String[] args, Map<String, String> env, Map<String, String> system, int cores) {
    SluiceProperties.Builder builder = SluiceProperties.builder()
        .defaults(DemoSettings.class.getResource("/application.properties"))
        .applicationKeys("server.", "demo.")
        .envAlias("PORT", PORT)
        .env(env)
        .system(system)
        .derive((values, sources) -> derive(values, sources, cores));
    configFile(args).ifPresent(file -> {
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException("--config: cannot read '" + file + "'");
      }
      builder.file(file);
    });
    SluiceProperties properties = builder.build();
    properties.checkApplicationKeys("demo.", KEYS);
    DemoSettings settings = new DemoSettings(properties);
    settings.port();
    settings.grpcPort();
    settings.maxCpuMillis();
    settings.maxWaitMillis();
    settings.framesPerMilli();
    if (settings.engine() == Engine.FFMPEG) {
      FfmpegSettings.from(settings);
    }
    return settings;
  }

  /**
   * The demo's values that stand for others, applied by the loader after every layering (so a
   * reload of the {@code --config} file gets them too).
   */
  static void derive(Map<String, String> values, Map<String, String> sources, int cores) {
    // an empty value in a later layer unsets the key: the only way to take back a default of the
    // jar (e.g. the fair queue's queue-key, which the plugin refuses beside queue=fifo)
    values.values().removeIf(String::isBlank);
    if ("auto".equalsIgnoreCase(values.getOrDefault(TRANSCODE_CONCURRENCY, "auto"))) {
      String written = values.getOrDefault(CPU_TARGET, "0.7");
      double target;
      try {
        target = Double.parseDouble(written);
      } catch (NumberFormatException e) {
        target = Double.NaN;
      }
      if (!(target > 0 && target <= 1)) {
        throw new SluiceConfigException(
            CPU_TARGET, written, sources.get(CPU_TARGET), "must be a number in (0, 1]");
      }
      boolean fixed = "fixed".equalsIgnoreCase(values.getOrDefault(TRANSCODE_LIMIT, "fixed"));
      values.put(
          TRANSCODE_CONCURRENCY,
          Integer.toString(fixed ? autoConcurrency(cores, target) : adaptiveCeiling(cores)));
      sources.put(
          TRANSCODE_CONCURRENCY,
          "auto on " + cores + " cores"
              + (sources.containsKey(TRANSCODE_CONCURRENCY)
                  ? " (" + sources.get(TRANSCODE_CONCURRENCY) + ")"
                  : ""));
    }
    if ("cpu".equalsIgnoreCase(values.getOrDefault(TRANSCODE_LIMIT, "fixed"))
        && !values.containsKey(TRANSCODE_TARGET_CPU)
        && values.containsKey(CPU_TARGET)) {
      // one knob for the demo's CPU share, whichever strategy uses it
      values.put(TRANSCODE_TARGET_CPU, values.get(CPU_TARGET));
      sources.put(TRANSCODE_TARGET_CPU, CPU_TARGET + " (" + sources.get(CPU_TARGET) + ")");
    }
    if (LimiterPeer.of(values.getOrDefault(LimiterPeer.KEY, "none")) != LimiterPeer.NONE) {
      // the peer guards /api/transcode instead of Sluice's limiter, never on top of it
      values.keySet().removeIf(k -> k.startsWith(LimiterPeer.REPLACED_PREFIX));
    }
  }

  /**
   * Concurrent transcodes for a CPU target: {@code max(1, round(target x cores))}.
   *
   * <p>Why round and not ceil: a job keeps one core busy, so {@code n} permits mean up to {@code n}
   * busy cores. On 2 cores at 70 % the ideal is 1.4; ceil gives 2, which is 100 % — the very Monday
   * the limiter exists to prevent — while round gives 1 (50 %, plus the rescue jobs, the history
   * traffic and the JVM itself). Undershooting costs throughput; overshooting costs the service. A
   * fractional limit (switching between 1 and 2 so the time average is 1.4) would hit 70 % on
   * average but swing between 50 % and 100 %; not done. On 8 cores round gives 6 (75 %), on 16, 11.
   */
  static int autoConcurrency(int cores, double target) {
    return Math.max(1, (int) Math.round(target * cores));
  }

  /**
   * The ceiling of an adaptive transcode limit ({@code limit=cpu} or {@code latency}) for
   * {@code max-concurrency=auto}: {@code 8 x cores}. The controller finds the limit; the ceiling only
   * bounds it, and must sit above what any job shape needs. A job that waits W ms on storage per C ms
   * of CPU needs {@code 0.7 x cores x (C + W) / C} permits to keep 70 % of the cores busy: 4.2 x cores
   * for the load test's {@code io} mix (50 ms CPU, 250 ms wait), 1.4 on 2 cores for pure CPU jobs.
   */
  static int adaptiveCeiling(int cores) {
    return 8 * Math.max(1, cores);
  }

  public int port() {
    return integer(PORT, 0, 65535);
  }

  /**
   * {@code demo.grpc.port}: the port of the gRPC door ({@code transcode.Transcoder/Transcode}), or
   * 0 when there is none (absent or 0: the default). The door needs {@code demo.engine=frames}.
   */
  public int grpcPort() {
    return get(GRPC_PORT).isEmpty() ? 0 : integer(GRPC_PORT, 0, 65535);
  }

  public int maxCpuMillis() {
    return integer(MAX_CPU_MILLIS, 1, 600_000);
  }

  public int maxWaitMillis() {
    return integer(MAX_WAIT_MILLIS, 0, 600_000);
  }

  /**
   * {@code demo.frames-per-milli}: the frames one job compresses per millisecond of {@code
   * cpuMillis}, or empty to measure it at start. Several services started one after the other
   * calibrate differently (0.41 to 0.58 seen on one 2-core machine, as the JIT and the neighbours
   * at start-up allow), so a measurement that compares services gives them all one rate.
   */
  public OptionalDouble framesPerMilli() {
    Optional<String> value = get(FRAMES_PER_MILLI);
    if (value.isEmpty()) {
      return OptionalDouble.empty();
    }
    try {
      double rate = Double.parseDouble(value.get().trim());
      if (rate > 0 && Double.isFinite(rate)) {
        return OptionalDouble.of(rate);
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(FRAMES_PER_MILLI + " must be a number above 0 but was '"
        + value.get() + "'"
        + properties.source(FRAMES_PER_MILLI).map(s -> " (from " + s + ")").orElse(""));
  }

  /** {@code demo.limiter-peer}, checked at load. */
  LimiterPeer limiterPeer() {
    return LimiterPeer.of(get(LimiterPeer.KEY).orElse("none"));
  }

  /** A key's value after layering: the demo's own or a {@code sluice.*} key. */
  public Optional<String> get(String key) {
    return properties.get(key);
  }

  /** Every {@code sluice.*} key after layering, as the plugin sees it. */
  public Map<String, String> sluice() {
    return properties.asMap();
  }

  /** The properties the plugin reads, and re-reads from {@code --config FILE} on reload. */
  public SluiceProperties sluiceProperties() {
    return properties;
  }

  /** {@code demo.engine}, checked at load. */
  Engine engine() {
    return Engine.of(get(Engine.KEY).orElse("frames"));
  }

  /** A whole number in [min, max], or a message naming the key, the value and where it came from. */
  int integer(String key, int min, int max) {
    String value = get(key).orElse(null);
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(
        key + " must be a whole number in [" + min + ", " + max + "] but was '" + value + "'"
            + properties.source(key).map(s -> " (from " + s + ")").orElse(""));
  }

  private static Optional<Path> configFile(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config")) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--config needs a file");
        }
        return Optional.of(Path.of(args[i + 1]));
      }
      if (args[i].startsWith("--config=")) {
        return Optional.of(Path.of(args[i].substring("--config=".length())));
      }
      throw new IllegalArgumentException("unknown argument '" + args[i]
          + "'; usage: java -jar demo-transcode-service.jar [--config FILE]");
    }
    return Optional.empty();
  }

  private static Map<String, String> systemProperties() {
    Map<String, String> map = new TreeMap<>();
    Properties properties = System.getProperties();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name));
    }
    return map;
  }
}
