package dev.sluice.javalin;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code sluice.*} properties, layered: a properties file, then environment variables, then
 * system properties ({@code -D}); a later layer wins.
 *
 * <p>Environment variables use the upper-case form: {@code SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY=4}
 * sets {@code sluice.limiters.transcode.max-concurrency}. The environment and the system properties
 * are injectable so tests need no real environment. Values are only collected here; they are parsed
 * and checked (with errors naming key and value) when the plugin starts.
 *
 * <p>Immutable; {@link #reload()} re-reads the file and returns a new instance.
 */
public final class SluiceProperties {

  /** Prefix of every Sluice property. */
  public static final String PREFIX = "sluice.";

  static final String LIMITERS = "sluice.limiters.";
  static final List<String> LIMITER_SUFFIXES =
      LimiterKeys.ALL.stream().map(Key::name).toList();

  private final Path file;
  private final Map<String, String> env;
  private final Map<String, String> system;
  private final Map<String, String> values;
  private final Map<String, String> sources;

  private final Map<String, String> top;
  private final Map<String, String> topSources;

  private SluiceProperties(Path file, Map<String, String> env, Map<String, String> system,
      Map<String, String> top, Map<String, String> topSources) {
    this.file = file;
    this.env = env;
    this.system = system;
    this.top = top;
    this.topSources = topSources;
    Map<String, String> merged = new TreeMap<>();
    Map<String, String> origin = new TreeMap<>();
    if (file != null) {
      readFile(file).forEach((k, v) -> {
        merged.put(k, v);
        origin.put(k, "file " + file);
      });
    }
    Map<String, String> envVars = new TreeMap<>();
    fromEnv(env, merged.keySet(), envVars).forEach((k, v) -> {
      merged.put(k, v);
      origin.put(k, "environment variable " + envVars.get(k));
    });
    system.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        merged.put(k, v.trim());
        origin.put(k, "system property -D" + k);
      }
    });
    top.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        merged.put(k, v.trim());
        origin.put(k, topSources.getOrDefault(k, "application"));
      }
    });
    this.values = Collections.unmodifiableMap(merged);
    this.sources = Collections.unmodifiableMap(origin);
  }

  /** Properties from the real environment and system properties only (no file). */
  public static SluiceProperties fromEnvironment() {
    return builder().build();
  }

  /** The file, then the real environment, then the real system properties. */
  public static SluiceProperties load(Path file) {
    return builder().file(file).build();
  }

  /** A builder; by default it reads the real environment and system properties and no file. */
  public static Builder builder() {
    return new Builder();
  }

  /** The value of a key after layering, trimmed. */
  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** Every {@code sluice.*} key and its value after layering. */
  public Map<String, String> asMap() {
    return values;
  }

  /**
   * Where a key's winning value came from: {@code file /path/sluice.properties}, {@code environment
   * variable SLUICE_...} or {@code system property -Dsluice...}.
   */
  public Optional<String> source(String key) {
    return Optional.ofNullable(sources.get(key));
  }

  /** The properties file, if one was given. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /** Re-reads the file and layers the same environment and system properties over it again. */
  public SluiceProperties reload() {
    return new SluiceProperties(file, env, system, top, topSources);
  }

  /** The names of the limiters configured under {@code sluice.limiters.<name>.*}. */
  public Set<String> limiterNames() {
    Set<String> names = new LinkedHashSet<>();
    for (String key : values.keySet()) {
      limiterKey(key).ifPresent(parts -> names.add(parts[0]));
    }
    return names;
  }

  /** Splits {@code sluice.limiters.<name>.<suffix>} into name and suffix. */
  static Optional<String[]> limiterKey(String key) {
    if (!key.startsWith(LIMITERS)) {
      return Optional.empty();
    }
    String rest = key.substring(LIMITERS.length());
    for (String suffix : LIMITER_SUFFIXES) {
      if (rest.endsWith("." + suffix) && rest.length() > suffix.length() + 1) {
        return Optional.of(new String[] {rest.substring(0, rest.length() - suffix.length() - 1), suffix});
      }
    }
    return Optional.empty();
  }

  private static Map<String, String> readFile(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new SluiceConfigException("properties file", file.toString(), "cannot be read: " + e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (name.startsWith(PREFIX)) {
        out.put(name, properties.getProperty(name).trim());
      }
    }
    return out;
  }

  /**
   * Maps {@code SLUICE_*} variables to keys. Upper-case with underscores loses the difference
   * between '.', '-' and '_', so static keys are matched by their env form, and a limiter's name is
   * matched against the names the file already uses before falling back to lower case.
   */
  static Map<String, String> fromEnv(Map<String, String> env, Set<String> fileKeys,
      Map<String, String> varOfKey) {
    Map<String, String> out = new LinkedHashMap<>();
    Map<String, String> knownLimiterNames = new LinkedHashMap<>();
    for (String key : fileKeys) {
      limiterKey(key).ifPresent(p -> knownLimiterNames.put(envForm(p[0]), p[0]));
    }
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (!var.startsWith("SLUICE_")) {
        continue;
      }
      String value = e.getValue() == null ? "" : e.getValue().trim();
      String key = SluiceKeys.byEnvForm(var);
      if (key == null) {
        key = limiterKeyFromEnv(var, knownLimiterNames);
      }
      if (key == null) {
        // an unrecognized SLUICE_ variable keeps a best-guess key so that the unknown-key check
        // names it and finds the nearest known key
        key = guessKey(var, knownLimiterNames);
      }
      out.put(key, value);
      varOfKey.put(key, var);
    }
    return out;
  }

  private static String limiterKeyFromEnv(String var, Map<String, String> knownNames) {
    String prefix = envForm(LIMITERS);
    if (!var.startsWith(prefix)) {
      return null;
    }
    String rest = var.substring(prefix.length());
    for (String suffix : LIMITER_SUFFIXES) {
      String envSuffix = "_" + envForm(suffix);
      if (rest.endsWith(envSuffix) && rest.length() > envSuffix.length()) {
        String envName = rest.substring(0, rest.length() - envSuffix.length());
        String name = knownNames.getOrDefault(envName, envName.toLowerCase(Locale.ROOT).replace('_', '-'));
        return LIMITERS + name + "." + suffix;
      }
    }
    return null;
  }

  /**
   * A key for a variable no known key matches: under {@code SLUICE_LIMITERS_} the name is a name
   * the file uses (or the first word) and the rest is the misspelt limiter key, so that
   * {@code SLUICE_LIMITERS_WORK_MAX_CONCURENCY} reads {@code sluice.limiters.work.max-concurency}.
   */
  private static String guessKey(String var, Map<String, String> knownNames) {
    String prefix = envForm(LIMITERS);
    if (var.startsWith(prefix) && var.length() > prefix.length()) {
      String rest = var.substring(prefix.length());
      String envName = knownNames.keySet().stream()
          .filter(n -> rest.startsWith(n + "_") && rest.length() > n.length() + 1)
          .max(java.util.Comparator.comparingInt(String::length))
          .orElse(rest.contains("_") ? rest.substring(0, rest.indexOf('_')) : rest);
      String name = knownNames.getOrDefault(envName, envName.toLowerCase(Locale.ROOT).replace('_', '-'));
      String suffix = rest.length() > envName.length() + 1
          ? rest.substring(envName.length() + 1).toLowerCase(Locale.ROOT).replace('_', '-') : "";
      return LIMITERS + name + "." + suffix;
    }
    return var.toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /** {@code sluice.limiters.transcode.max-queue} -> {@code SLUICE_LIMITERS_TRANSCODE_MAX_QUEUE}. */
  static String envForm(String key) {
    StringBuilder sb = new StringBuilder(key.length());
    for (char c : key.toCharArray()) {
      sb.append(Character.isLetterOrDigit(c) ? Character.toUpperCase(c) : '_');
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "SluiceProperties" + values;
  }

  /** Builds {@link SluiceProperties}; every layer is optional. */
  public static final class Builder {
    private Path file;
    private Map<String, String> env = System.getenv();
    private Map<String, String> system = systemProperties(System.getProperties());
    private Map<String, String> top = Map.of();
    private Map<String, String> topSources = Map.of();

    private Builder() {}

    /** The properties file, read first (the lowest layer). */
    public Builder file(Path file) {
      this.file = Objects.requireNonNull(file, "file");
      return this;
    }

    /** The environment to read instead of {@link System#getenv()}. */
    public Builder env(Map<String, String> env) {
      this.env = Map.copyOf(env);
      return this;
    }

    /** The system properties to read instead of {@link System#getProperties()}. */
    public Builder system(Map<String, String> system) {
      this.system = Map.copyOf(system);
      return this;
    }

    /**
     * Values an application has already layered itself (the top layer), with where each came
     * from ({@code file /etc/app.properties}, ...) so that errors can say so.
     */
    public Builder layered(Map<String, String> values, Map<String, String> sources) {
      this.top = Map.copyOf(values);
      this.topSources = Map.copyOf(sources);
      return this;
    }

    public SluiceProperties build() {
      return new SluiceProperties(file, env, system, top, topSources);
    }

    private static Map<String, String> systemProperties(Properties properties) {
      Map<String, String> out = new LinkedHashMap<>();
      for (String name : properties.stringPropertyNames()) {
        if (name.startsWith(PREFIX)) {
          out.put(name, properties.getProperty(name));
        }
      }
      return out;
    }
  }
}
