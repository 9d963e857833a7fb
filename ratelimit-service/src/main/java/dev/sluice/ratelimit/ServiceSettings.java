package dev.sluice.ratelimit;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.DurationText;
import dev.sluice.time.NanoClock;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The service's properties, layered by limiter-config ({@link SluiceProperties}): the jar's
 * defaults, the {@code --config} file, environment variables, {@code -D} system properties. Strict:
 * a {@code sluice.*} key the service does not read, or a bad value, fails at start, naming the key,
 * the value and where it came from.
 */
public final class ServiceSettings {

  static final String PORT = "sluice.ratelimit-service.port";
  static final String CONFIG = "sluice.ratelimit-service.config";
  static final String RELOAD_INTERVAL = "sluice.ratelimit-service.reload-interval";
  static final String ADMISSIONS_FILE = "sluice.ratelimit-service.admissions-file";

  /** Every {@code sluice.*} key the service reads. */
  static final List<String> KEYS = List.of(
      PORT,
      CONFIG,
      RELOAD_INTERVAL,
      ADMISSIONS_FILE,
      SluiceKeys.STRICT.name(),
      SluiceKeys.REDIS_URI.name(),
      SluiceKeys.REDIS_TIMEOUT.name(),
      SluiceKeys.REDIS_CONNECT_TIMEOUT.name(),
      SluiceKeys.REDIS_EXPECTED_NODES.name(),
      SluiceKeys.REDIS_ON_FAILURE.name());

  private final int port;
  private final Path config;
  private final Duration reloadInterval;
  private final Path admissionsFile;
  private final URI redisUri;
  private final Duration redisTimeout;
  private final Duration redisConnectTimeout;
  private final int redisExpectedNodes;
  private final FailurePolicy redisOnFailure;

  private final QuotaRules quota;

  private ServiceSettings(SluiceProperties p) {
    List<String> known = new ArrayList<>(KEYS);
    known.addAll(QuotaRules.keysIn(p));
    p.checkApplicationKeys(SluiceProperties.PREFIX, known);
    this.port = port(p);
    this.quota = QuotaRules.from(p);
    this.config = config(p);
    this.reloadInterval = reloadInterval(p);
    this.admissionsFile = p.get(ADMISSIONS_FILE)
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .map(Path::of)
        .orElse(null);
    this.redisUri = value(p, SluiceKeys.REDIS_URI);
    this.redisTimeout = value(p, SluiceKeys.REDIS_TIMEOUT);
    this.redisConnectTimeout = value(p, SluiceKeys.REDIS_CONNECT_TIMEOUT);
    this.redisExpectedNodes = value(p, SluiceKeys.REDIS_EXPECTED_NODES);
    this.redisOnFailure = value(p, SluiceKeys.REDIS_ON_FAILURE);
  }

  /**
   * Reads {@code --config FILE} among {@code args} (optional), over the jar's defaults and under
   * {@code env} and {@code system}.
   *
   * @throws SluiceConfigException naming the key (or option), the value and its source
   */
  public static ServiceSettings load(
      String[] args, Map<String, String> env, Map<String, String> system) {
    SluiceProperties.Builder builder = SluiceProperties.builder()
        .defaults(ServiceSettings.class.getResource("/ratelimit-service.properties"))
        .applicationKeys("sluice.ratelimit-service.")
        .env(env)
        .system(system);
    configFile(args).ifPresent(file -> {
      if (!Files.isReadable(file)) {
        throw new SluiceConfigException("--config", file.toString(), "cannot read the file");
      }
      builder.file(file);
    });
    return new ServiceSettings(builder.build());
  }

  static Optional<Path> configFile(String[] args) {
    if (args.length == 0) {
      return Optional.empty();
    }
    if (args.length == 2 && args[0].equals("--config")) {
      return Optional.of(Path.of(args[1]));
    }
    if (args.length == 1 && args[0].startsWith("--config=")) {
      return Optional.of(Path.of(args[0].substring("--config=".length())));
    }
    throw new SluiceConfigException(
        "command line",
        String.join(" ", args),
        "unknown arguments; usage: --config sluice.properties");
  }

  private static int port(SluiceProperties p) {
    String raw = p.get(PORT).orElse("8081").trim();
    int port;
    try {
      port = Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65_535) {
      throw new SluiceConfigException(
          PORT, raw, p.source(PORT).orElse(null), "must be a port from 0 to 65535");
    }
    return port;
  }

  private static Path config(SluiceProperties p) {
    Optional<String> raw = p.get(CONFIG).map(String::trim).filter(s -> !s.isEmpty());
    if (raw.isEmpty()) {
      throw new SluiceConfigException(
          CONFIG,
          p.get(CONFIG).orElse(null),
          p.source(CONFIG).orElse(null),
          "required: an envoy/ratelimit YAML file, or a folder of them");
    }
    Path path = Path.of(raw.get());
    if (!Files.exists(path)) {
      throw new SluiceConfigException(
          CONFIG, raw.get(), p.source(CONFIG).orElse(null), "no such file or folder");
    }
    return path;
  }

  private static Duration reloadInterval(SluiceProperties p) {
    String raw = p.get(RELOAD_INTERVAL).orElse("5s").trim();
    try {
      return DurationText.parse(raw);
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(
          RELOAD_INTERVAL,
          raw,
          p.source(RELOAD_INTERVAL).orElse(null),
          e.getMessage() + "; 0s turns the reload off");
    }
  }

  private static <T> T value(SluiceProperties p, dev.sluice.config.Key<T> key) {
    Optional<String> raw = p.get(key.name());
    return raw.isPresent()
        ? key.parse(key.name(), raw.get(), p.source(key.name()).orElse(null))
        : key.defaultValue();
  }

  int port() {
    return port;
  }

  Path config() {
    return config;
  }

  /** How often the descriptors are read again; zero: never. */
  Duration reloadInterval() {
    return reloadInterval;
  }

  /** Where each fixed window's admissions are appended ({@link AdmissionsFile}), if anywhere. */
  Optional<Path> admissionsFile() {
    return Optional.ofNullable(admissionsFile);
  }

  /** The RLQS quotas, from {@code sluice.ratelimit-service.quota.*}. */
  QuotaRules quota() {
    return quota;
  }

  /** Where the RLQS demands are kept: Redis when {@code sluice.redis.uri} is set. */
  Optional<URI> redisUri() {
    return Optional.ofNullable(redisUri);
  }

  Duration redisTimeout() {
    return redisTimeout;
  }

  /** The store's settings when {@code sluice.redis.uri} is set. */
  Optional<StoreSettings> store(NanoClock clock) {
    if (redisUri == null) {
      return Optional.empty();
    }
    return Optional.of(new StoreSettings(
        redisUri, redisTimeout, redisExpectedNodes, redisOnFailure, clock, redisConnectTimeout));
  }
}
