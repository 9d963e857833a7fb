package dev.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The {@code sluice.*} properties, layered: defaults (a resource in the application's jar), then a
 * properties file, then environment variables, then system properties ({@code -D}); a later layer
 * wins, and each value remembers where it came from, so an error can say so.
 *
 * <p>Environment variables use the upper-case form: {@code SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY=4}
 * sets {@code sluice.limiters.transcode.max-concurrency}. The environment and the system properties
 * are injectable so tests need no real environment. Values are only collected here; they are parsed
 * and checked (with errors naming key and value) when the plugin starts.
 *
 * <p>An application can layer its own keys the same way, from the same files ({@link
 * Builder#applicationKeys}), and derive values from others after layering ({@link Builder#derive}):
 * one loader for the whole configuration, re-read as a whole when the plugin reloads the file.
 *
 * <p>Immutable; {@link #reload()} re-reads the file and returns a new instance.
 */
public final class SluiceProperties {

  /** Prefix of every Sluice property. */
  public static final String PREFIX = "sluice.";

  public static final String LIMITERS = "sluice.limiters.";
  static final List<String> LIMITER_SUFFIXES =
      LimiterKeys.ALL.stream().map(LimiterKey::name).toList();

  /**
   * A step run on the layered values before they are used, at start and again on every reload: for
   * values that stand for others (a computed default such as {@code auto}) or follow from other
   * keys. It sees every layered key, the application's included.
   */
  @FunctionalInterface
  public interface Derivation {
    /**
     * Changes {@code values} in place.
     *
     * @param values every layered key and its value; change, add or remove keys in it
     * @param sources where each value came from; say where a derived value came from
     * @throws SluiceConfigException naming key, value and source when a value is wrong
     */
    void derive(Map<String, String> values, Map<String, String> sources);
  }

  private final Layers layers;
  private final Map<String, String> values;
  private final Map<String, String> all;
  private final Map<String, String> sources;

  private SluiceProperties(Layers layers) {
    this.layers = layers;
    Map<String, String> merged = new TreeMap<>();
    Map<String, String> origin = new TreeMap<>();
    layers.defaults.forEach((k, v) -> {
      merged.put(k, v);
      origin.put(k, layers.defaultsSource);
    });
    if (layers.file != null) {
      readFile(layers.file, layers::wanted).forEach((k, v) -> {
        merged.put(k, v);
        origin.put(k, "file " + layers.file);
      });
    }
    Map<String, String> envVars = new TreeMap<>();
    Map<String, String> fromEnv =
        EnvironmentKeys.map(layers.env, merged.keySet(), layers.envAliases, envVars);
    fromEnv.forEach((k, v) -> {
      merged.put(k, v);
      origin.put(k, "environment variable " + envVars.get(k));
    });
    layers.system.forEach((k, v) -> {
      if (layers.wanted(k)) {
        merged.put(k, v.trim());
        origin.put(k, "system property -D" + k);
      }
    });
    layers.derivation.derive(merged, origin);
    merged.values().removeIf(Objects::isNull);
    origin.keySet().retainAll(merged.keySet());
    Map<String, String> sluice = new TreeMap<>(merged);
    sluice.keySet().removeIf(k -> !k.startsWith(PREFIX));
    this.values = Collections.unmodifiableMap(sluice);
    this.all = Collections.unmodifiableMap(new TreeMap<>(merged));
    this.sources = Collections.unmodifiableMap(new TreeMap<>(origin));
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

  /**
   * The value of a key after layering (trimmed) and derivation: a {@code sluice.*} key or one of
   * the application's ({@link Builder#applicationKeys}).
   */
  public Optional<String> get(String key) {
    return Optional.ofNullable(all.get(key));
  }

  /** Every {@code sluice.*} key and its value after layering (the application's keys not). */
  public Map<String, String> asMap() {
    return values;
  }

  /**
   * Where a key's winning value came from: {@code resource jar:...!/application.properties}, {@code
   * file /path/sluice.properties}, {@code environment variable SLUICE_...}, {@code system property
   * -Dsluice...}, or what a {@link Derivation} said.
   */
  public Optional<String> source(String key) {
    return Optional.ofNullable(sources.get(key));
  }

  /** The properties file, if one was given. */
  public Optional<Path> file() {
    return Optional.ofNullable(layers.file);
  }

  /**
   * Re-reads the file and layers it between the same defaults and the same environment and system
   * properties again, then derives again.
   *
   * @throws SluiceConfigException when the file cannot be read, or from the {@link Derivation}
   */
  public SluiceProperties reload() {
    return new SluiceProperties(layers);
  }

  /**
   * Checks the application's own keys under {@code prefix} ({@link Builder#applicationKeys}) the way
   * the plugin checks its {@code sluice.*} keys: a key the application does not read is almost
   * always a typo ({@code demo.engin}), and ignoring it runs with a default nobody chose. With
   * {@code sluice.strict} (default true) the first unknown key fails, naming where it came from
   * and the nearest known key; otherwise each is a warning.
   *
   * @param prefix the application's prefix, e.g. {@code "app."}
   * @param known every key under the prefix the application reads
   * @throws SluiceConfigException in strict mode, for the first unknown key (counting the rest)
   */
  public void checkApplicationKeys(String prefix, Collection<String> known) {
    checkApplicationKeys(prefix, known, ConfigWarnings.systemLogger());
  }

  /**
   * {@link #checkApplicationKeys(String, Collection)}, with the warnings of {@code
   * sluice.strict=false} going to {@code warnings}.
   */
  public void checkApplicationKeys(
      String prefix, Collection<String> known, ConfigWarnings warnings) {
    List<SluiceConfigException> unknown = new ArrayList<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      String key = e.getKey();
      if (key.startsWith(prefix) && !known.contains(key)) {
        String nearest = UnknownKeys.nearest(key, known);
        unknown.add(new SluiceConfigException(
            key,
            e.getValue(),
            sources.get(key),
            "unknown key" + (nearest == null ? "" : "; did you mean '" + nearest + "'?")));
      }
    }
    if (unknown.isEmpty()) {
      return;
    }
    if (!"false".equalsIgnoreCase(get(SluiceKeys.STRICT.name()).orElse("true").trim())) {
      throw UnknownKeys.strictFailure(unknown, "unknown");
    }
    unknown.forEach(e -> warnings.warn(
        "unknown key " + e.key(), e.getMessage() + " (ignored: " + SluiceKeys.STRICT + "=false)"));
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
        return Optional.of(
            new String[] {rest.substring(0, rest.length() - suffix.length() - 1), suffix});
      }
    }
    return Optional.empty();
  }

  private static Map<String, String> readFile(Path file, Predicate<String> wanted) {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(reader, wanted);
    } catch (IOException e) {
      throw new SluiceConfigException(
          "properties file",
          file.toString(),
          e instanceof java.nio.file.NoSuchFileException
              ? "does not exist"
              : "cannot be read: " + e.getMessage());
    }
  }

  private static Map<String, String> read(Reader reader, Predicate<String> wanted)
      throws IOException {
    Properties properties = new Properties();
    try {
      properties.load(reader);
    } catch (IllegalArgumentException e) {
      // Properties.load throws this, naming neither key nor line, for a bad escape (`\\u12`); as
      // an IOException it reaches the callers' "cannot be read", which names the file
      throw new IOException("a malformed \\uXXXX escape (" + e.getMessage() + ")", e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (wanted.test(name)) {
        out.put(name, properties.getProperty(name).trim());
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "SluiceProperties" + values;
  }

  /** What to layer, kept so that a reload layers the same again; the defaults are read once. */
  private record Layers(
      Map<String, String> defaults,
      String defaultsSource,
      Path file,
      Map<String, String> env,
      Map<String, String> system,
      List<String> applicationPrefixes,
      Map<String, String> envAliases,
      Derivation derivation) {

    boolean wanted(String key) {
      if (key.startsWith(PREFIX)) {
        return true;
      }
      for (String prefix : applicationPrefixes) {
        if (key.startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }
  }

  /** Builds {@link SluiceProperties}; every layer is optional. */
  public static final class Builder {
    private URL defaults;
    private Path file;
    private Map<String, String> env = System.getenv();
    private Map<String, String> system; // null: the JVM's, copied when built
    private List<String> applicationPrefixes = List.of();
    private final Map<String, String> envAliases = new LinkedHashMap<>();
    private Derivation derivation = (values, sources) -> {};

    private Builder() {}

    /**
     * Defaults below the file, from a properties resource (e.g. {@code
     * App.class.getResource("/application.properties")} in the application's jar); read once.
     */
    public Builder defaults(URL resource) {
      this.defaults = Objects.requireNonNull(resource, "resource");
      return this;
    }

    /** The properties file, read above the defaults and again on every reload. */
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
     * Layers the application's own keys under these prefixes ({@code "server.", "app."}) too: from
     * the defaults and the file, from {@code -D}, and from an environment variable in upper case
     * ({@code SERVER_PORT}) for a key the defaults or the file name. {@link #get} and {@link
     * #source} answer for them; {@link #asMap()} and the plugin see only {@code sluice.*}.
     */
    public Builder applicationKeys(String... prefixes) {
      this.applicationPrefixes = List.of(prefixes);
      return this;
    }

    /** An environment variable that sets a key under another name ({@code PORT} for {@code server.port}). */
    public Builder envAlias(String variable, String key) {
      envAliases.put(
          Objects.requireNonNull(variable, "variable"), Objects.requireNonNull(key, "key"));
      return this;
    }

    /** A step run on the layered values at start and on every reload; see {@link Derivation}. */
    public Builder derive(Derivation derivation) {
      this.derivation = Objects.requireNonNull(derivation, "derivation");
      return this;
    }

    /**
     * Reads the layers and builds the properties.
     *
     * @throws SluiceConfigException when the defaults or the file cannot be read, or from the
     *     {@link Derivation}
     */
    public SluiceProperties build() {
      Map<String, String> systemLayer =
          system != null ? system : systemProperties(System.getProperties());
      Layers layers = new Layers(
          Map.of(),
          null,
          file,
          env,
          systemLayer,
          applicationPrefixes,
          Map.copyOf(envAliases),
          derivation);
      if (defaults != null) {
        layers = new Layers(
            readResource(defaults, layers),
            "resource " + defaults,
            file,
            env,
            systemLayer,
            applicationPrefixes,
            Map.copyOf(envAliases),
            derivation);
      }
      return new SluiceProperties(layers);
    }

    private static Map<String, String> readResource(URL resource, Layers layers) {
      try (InputStream in = resource.openStream();
          Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
        return Map.copyOf(read(reader, layers::wanted));
      } catch (IOException e) {
        throw new SluiceConfigException(
            "properties resource", resource.toString(), "cannot be read: " + e);
      }
    }

    private static Map<String, String> systemProperties(Properties properties) {
      Map<String, String> out = new LinkedHashMap<>();
      for (String name : properties.stringPropertyNames()) {
        out.put(name, properties.getProperty(name));
      }
      return out;
    }
  }
}
