package dev.sluice.demo;

import dev.sluice.javalin.SluiceProperties;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The service's configuration, layered (a later layer wins): {@code application.properties} in the
 * jar, then the file given with {@code --config FILE}, then environment variables, then {@code -D}
 * system properties.
 *
 * <p>An environment variable overrides a key that one of the files names, in upper case with dots and
 * dashes as underscores ({@code SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY=2}); {@code PORT} sets
 * {@code server.port}. An empty value unsets the key ({@code -Dsluice.limiters.transcode.queue-key=}).
 * The value {@code auto} of {@code sluice.limiters.transcode.max-concurrency} is replaced by
 * {@link #autoConcurrency}.
 */
public final class DemoSettings {

  static final String PORT = "server.port";
  static final String MAX_CPU_MILLIS = "demo.max-cpu-millis";
  static final String MAX_WAIT_MILLIS = "demo.max-wait-millis";
  static final String CPU_TARGET = "demo.cpu-target";
  static final String TRANSCODE_CONCURRENCY = "sluice.limiters.transcode.max-concurrency";
  static final String TRANSCODE_LIMIT = "sluice.limiters.transcode.limit";
  static final String TRANSCODE_TARGET_CPU = "sluice.limiters.transcode.target-cpu";
  static final String RULES_FILE = "sluice.rules.file";

  private final Map<String, String> values;
  private final Map<String, String> sources;

  private DemoSettings(Map<String, String> values, Map<String, String> sources) {
    this.values = Collections.unmodifiableMap(values);
    this.sources = Collections.unmodifiableMap(sources);
  }

  /** The real arguments, environment and system properties; {@code cores} from the JVM. */
  public static DemoSettings load(String[] args) {
    return load(args, System.getenv(), systemProperties(), Runtime.getRuntime().availableProcessors());
  }

  /**
   * @throws IllegalArgumentException naming the option, key or file that is wrong
   */
  static DemoSettings load(
      String[] args, Map<String, String> env, Map<String, String> system, int cores) {
    Map<String, String> merged = new TreeMap<>();
    Map<String, String> sources = new TreeMap<>();
    try (InputStream defaults = DemoSettings.class.getResourceAsStream("/application.properties")) {
      if (defaults != null) {
        read(new java.io.InputStreamReader(defaults, StandardCharsets.UTF_8)).forEach((k, v) -> {
          merged.put(k, v);
          sources.put(k, "application.properties in the demo's jar");
        });
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    configFile(args).ifPresent(file -> {
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        read(reader).forEach((k, v) -> {
          merged.put(k, v);
          sources.put(k, "file " + file);
        });
      } catch (IOException e) {
        throw new IllegalArgumentException("--config: cannot read '" + file + "': " + e.getMessage(), e);
      }
    });
    for (String key : Map.copyOf(merged).keySet()) {
      String var = key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
      String value = env.get(var);
      if (value != null) {
        merged.put(key, value.trim());
        sources.put(key, "environment variable " + var);
      }
    }
    if (env.containsKey("PORT")) {
      merged.put(PORT, env.get("PORT").trim());
    }
    system.forEach((k, v) -> {
      if (k.startsWith("sluice.") || k.startsWith("server.") || k.startsWith("demo.")) {
        merged.put(k, v.trim());
        sources.put(k, "system property -D" + k);
      }
    });
    // an empty value in a later layer unsets the key: the only way to take back a default of the
    // jar (e.g. the fair queue's queue-key, which the plugin refuses beside queue=fifo)
    merged.values().removeIf(String::isEmpty);
    sources.keySet().retainAll(merged.keySet());
    if ("auto".equalsIgnoreCase(merged.getOrDefault(TRANSCODE_CONCURRENCY, "auto"))) {
      double target = number(merged, CPU_TARGET, "0.7");
      if (!(target > 0 && target <= 1)) {
        throw new IllegalArgumentException(CPU_TARGET + " must be in (0, 1] but was '" + merged.get(CPU_TARGET) + "'");
      }
      boolean fixed = "fixed".equalsIgnoreCase(merged.getOrDefault(TRANSCODE_LIMIT, "fixed").trim());
      merged.put(TRANSCODE_CONCURRENCY,
          Integer.toString(fixed ? autoConcurrency(cores, target) : adaptiveCeiling(cores)));
    }
    if ("cpu".equalsIgnoreCase(merged.getOrDefault(TRANSCODE_LIMIT, "fixed").trim())
        && !merged.containsKey(TRANSCODE_TARGET_CPU) && merged.containsKey(CPU_TARGET)) {
      // one knob for the demo's CPU share, whichever strategy uses it
      merged.put(TRANSCODE_TARGET_CPU, merged.get(CPU_TARGET));
      sources.put(TRANSCODE_TARGET_CPU, CPU_TARGET + " (" + sources.get(CPU_TARGET) + ")");
    }
    if (LimiterPeer.of(merged.getOrDefault(LimiterPeer.KEY, "none")) != LimiterPeer.NONE) {
      // the peer guards /api/transcode instead of Sluice's limiter, never on top of it
      merged.keySet().removeIf(k -> k.startsWith(LimiterPeer.REPLACED_PREFIX));
    }
    DemoSettings settings = new DemoSettings(merged, sources);
    settings.port();
    settings.maxCpuMillis();
    settings.maxWaitMillis();
    return settings;
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

  public int maxCpuMillis() {
    return integer(MAX_CPU_MILLIS, 1, 600_000);
  }

  public int maxWaitMillis() {
    return integer(MAX_WAIT_MILLIS, 0, 600_000);
  }

  /** {@code demo.limiter-peer}, checked at load. */
  LimiterPeer limiterPeer() {
    return LimiterPeer.of(values.getOrDefault(LimiterPeer.KEY, "none"));
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** Every {@code sluice.*} key after layering, for the plugin. */
  public Map<String, String> sluice() {
    Map<String, String> sluice = new TreeMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith("sluice.")) {
        sluice.put(k, v);
      }
    });
    return sluice;
  }

  /**
   * The {@code sluice.*} keys after the demo's layering, for the plugin. They are handed over as one
   * already-layered map (as the top layer, with no environment of their own), so the plugin sees
   * exactly what this class resolved, {@code auto} already replaced by a number.
   */
  public SluiceProperties sluiceProperties() {
    return SluiceProperties.builder().env(Map.of()).system(Map.of())
        .layered(sluice(), sources).build();
  }

  private int integer(String key, int min, int max) {
    String value = values.get(key);
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(
        key + " must be a whole number in [" + min + ", " + max + "] but was '" + value + "'");
  }

  private static double number(Map<String, String> values, String key, String fallback) {
    String value = values.getOrDefault(key, fallback);
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number but was '" + value + "'");
    }
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
      throw new IllegalArgumentException(
          "unknown argument '" + args[i] + "'; usage: java -jar demo-transcode-service.jar [--config FILE]");
    }
    return Optional.empty();
  }

  private static Map<String, String> read(Reader reader) throws IOException {
    Properties properties = new Properties();
    properties.load(reader);
    Map<String, String> map = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name).trim());
    }
    return map;
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
