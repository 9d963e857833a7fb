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
      List.of("max-concurrency", "max-queue", "queue-timeout", "path", "scope");

  private final Path file;
  private final Map<String, String> env;
  private final Map<String, String> system;
  private final Map<String, String> values;
  private final Map<String, String> sources;

  private SluiceProperties(Path file, Map<String, String> env, Map<String, String> system) {
    this.file = file;
    this.env = env;
    this.system = system;
    Map<String, String> merged = new TreeMap<>();
    Map<String, String> origin = new TreeMap<>();
    if (file != null) {
      readFile(file).forEach((k, v) -> {
        merged.put(k, v);
        origin.put(k, "file " + file);
      });
    }
    fromEnv(env, merged.keySet()).forEach((k, v) -> {
      merged.put(k, v);
      origin.put(k, "environment");
    });
    system.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        merged.put(k, v.trim());
        origin.put(k, "system property");
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

  /** Where a key's winning value came from ("file ...", "environment", "system property"). */
  public Optional<String> source(String key) {
    return Optional.ofNullable(sources.get(key));
  }

  /** The properties file, if one was given. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /** Re-reads the file and layers the same environment and system properties over it again. */
  public SluiceProperties reload() {
    return new SluiceProperties(file, env, system);
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
  static Map<String, String> fromEnv(Map<String, String> env, Set<String> fileKeys) {
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
      // an unrecognized SLUICE_ variable keeps a best-guess key so that the unknown-key warning names it
      out.put(key != null ? key : var.toLowerCase(Locale.ROOT).replace('_', '.'), value);
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

    public SluiceProperties build() {
      return new SluiceProperties(file, env, system);
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
