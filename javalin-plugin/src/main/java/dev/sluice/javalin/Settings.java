package dev.sluice.javalin;

import static dev.sluice.javalin.SluiceKeys.*;

import dev.sluice.store.FailurePolicy;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The plugin's settings, parsed and checked from {@link SluiceProperties} (over the code-level
 * defaults of {@link SluiceConfig}). Every error names the key and the value.
 */
record Settings(
    boolean enabled,
    Map<String, LimiterSettings> limiters,
    Optional<Path> rulesFile,
    Duration rulesReloadInterval,
    Optional<URI> rulesRemote,
    String accountHeader,
    Optional<String> accountAttribute,
    String deviceHeader,
    TrustedProxies trustedProxies,
    Optional<URI> redisUri,
    Duration redisTimeout,
    Duration redisConnectTimeout,
    int redisExpectedNodes,
    FailurePolicy redisOnFailure,
    List<String> bypassPaths,
    Statuses statuses,
    boolean draftHeaders,
    boolean xHeaders,
    Duration drainTimeout,
    Duration reloadInterval,
    List<String> unknownKeys) {

  static final String DEFAULT_BYPASS = "/health,/healthz,/ready,/readyz,/live,/livez";

  /** The statuses of the four answers. */
  record Statuses(int queueFull, int queueTimeout, int rateLimited, int shuttingDown) {}

  /** One limiter's settings. */
  record LimiterSettings(String name, Optional<String> path, int maxConcurrency, int maxQueue,
      Duration queueTimeout, String scope) {}

  static Settings resolve(SluiceProperties p, Map<String, LimiterConfig> code) {
    Map<String, LimiterSettings> limiters = new LinkedHashMap<>();
    List<String> names = new ArrayList<>(code.keySet());
    p.limiterNames().stream().filter(n -> !names.contains(n)).forEach(names::add);
    for (String name : names) {
      limiters.put(name, limiter(p, name, code.get(name)));
    }
    List<String> unknown =
        p.asMap().keySet().stream().filter(k -> !SluiceKeys.isKnown(k)).sorted().toList();
    Optional<String> redis = p.get(REDIS_URI).filter(s -> !s.isBlank());
    return new Settings(
        bool(p, ENABLED, true),
        Collections.unmodifiableMap(limiters), // declaration order: the first matching path wins
        p.get(RULES_FILE).filter(s -> !s.isBlank()).map(Path::of),
        duration(p, RULES_RELOAD_INTERVAL, Duration.ofSeconds(5), true),
        p.get(RULES_REMOTE).filter(v -> !v.isBlank()).map(v -> uri(RULES_REMOTE, v)),
        header(p, ACCOUNT_HEADER, "X-Account-Id"),
        p.get(ACCOUNT_ATTRIBUTE).filter(s -> !s.isBlank()),
        header(p, DEVICE_HEADER, "X-Device-Id"),
        TrustedProxies.parse(TRUSTED_PROXIES, p.get(TRUSTED_PROXIES).orElse("")).with(
            TrustedProxies.Header.parse(FORWARDED_HEADER,
                p.get(FORWARDED_HEADER).orElse("x-forwarded-for")),
            ipv6Prefix(p)),
        redis.map(v -> uri(REDIS_URI, v)),
        positive(REDIS_TIMEOUT, p.get(REDIS_TIMEOUT).orElse("50ms"),
            duration(p, REDIS_TIMEOUT, Duration.ofMillis(50), false)),
        duration(p, REDIS_CONNECT_TIMEOUT, Duration.ofSeconds(1), false),
        integer(p, REDIS_EXPECTED_NODES, 1, 1),
        failurePolicy(p),
        paths(p.get(BYPASS_PATHS).orElse(DEFAULT_BYPASS)),
        new Statuses(
            status(p, STATUS_QUEUE_FULL, 429),
            status(p, STATUS_QUEUE_TIMEOUT, 504),
            status(p, STATUS_RATE_LIMITED, 429),
            status(p, STATUS_SHUTTING_DOWN, 503)),
        bool(p, HEADERS_DRAFT, true),
        bool(p, HEADERS_X, true),
        duration(p, DRAIN_TIMEOUT, Duration.ofSeconds(30), true),
        duration(p, RELOAD_INTERVAL, Duration.ZERO, true),
        unknown);
  }

  static LimiterSettings limiter(SluiceProperties p, String name, LimiterConfig code) {
    String prefix = SluiceProperties.LIMITERS + name + ".";
    Optional<String> path = p.get(prefix + "path")
        .or(() -> Optional.ofNullable(code == null ? null : code.pathOrNull()));
    path.ifPresent(v -> {
      if (!v.startsWith("/")) {
        throw new SluiceConfigException(prefix + "path", v, "a path pattern must start with /");
      }
    });
    int codeMax = code != null && code.maxConcurrencyOrNull() != null
        ? code.maxConcurrencyOrNull() : LimiterConfig.DEFAULT_MAX_CONCURRENCY;
    int codeQueue = code != null && code.maxQueueOrNull() != null
        ? code.maxQueueOrNull() : LimiterConfig.DEFAULT_MAX_QUEUE;
    Duration codeTimeout = code != null && code.queueTimeoutOrNull() != null
        ? code.queueTimeoutOrNull() : LimiterConfig.DEFAULT_QUEUE_TIMEOUT;
    int max = integer(p, prefix + "max-concurrency", codeMax, 1);
    int queue = integer(p, prefix + "max-queue", codeQueue, 0);
    String timeoutKey = prefix + "queue-timeout";
    Duration timeout = positive(timeoutKey, p.get(timeoutKey).orElse(codeTimeout.toString()),
        duration(p, timeoutKey, codeTimeout, false));
    String scope = p.get(prefix + "scope").orElse("local").toLowerCase(Locale.ROOT);
    if (!scope.equals("local") && !scope.equals("global")) {
      throw new SluiceConfigException(prefix + "scope", scope, "allowed: local, global");
    }
    return new LimiterSettings(name, path, max, queue, timeout, scope);
  }

  private static boolean bool(SluiceProperties p, String key, boolean dflt) {
    Optional<String> v = p.get(key);
    if (v.isEmpty()) {
      return dflt;
    }
    switch (v.get().toLowerCase(Locale.ROOT)) {
      case "true":
      case "yes":
      case "on":
        return true;
      case "false":
      case "no":
      case "off":
        return false;
      default:
        throw new SluiceConfigException(key, v.get(), "must be true or false");
    }
  }

  static int integer(SluiceProperties p, String key, int dflt, int min) {
    Optional<String> v = p.get(key);
    if (v.isEmpty()) {
      if (dflt < min) {
        throw new SluiceConfigException(key, Integer.toString(dflt), "must be >= " + min);
      }
      return dflt;
    }
    int n;
    try {
      n = Integer.parseInt(v.get());
    } catch (NumberFormatException e) {
      throw new SluiceConfigException(key, v.get(), "not a whole number");
    }
    if (n < min) {
      throw new SluiceConfigException(key, v.get(), "must be >= " + min);
    }
    return n;
  }

  private static Duration duration(SluiceProperties p, String key, Duration dflt, boolean zeroOk) {
    Optional<String> v = p.get(key);
    if (v.isEmpty()) {
      return dflt;
    }
    Duration d = DurationValue.parse(key, v.get());
    return zeroOk ? d : positive(key, v.get(), d);
  }

  private static Duration positive(String key, String raw, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new SluiceConfigException(key, raw, "must be > 0");
    }
    return d;
  }

  private static int status(SluiceProperties p, String key, int dflt) {
    int s = integer(p, key, dflt, 100);
    if (s < 400 || s > 599) {
      throw new SluiceConfigException(key, Integer.toString(s), "must be an error status 400..599");
    }
    return s;
  }

  private static String header(SluiceProperties p, String key, String dflt) {
    String v = p.get(key).orElse(dflt);
    if (v.isEmpty() || !v.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ':')) {
      throw new SluiceConfigException(key, v, "not a valid header name");
    }
    return v;
  }

  private static URI uri(String key, String value) {
    try {
      URI uri = new URI(value);
      if (uri.getScheme() == null) {
        throw new SluiceConfigException(key, value, "needs a scheme, e.g. redis://host:6379");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new SluiceConfigException(key, value, "not a URI: " + e.getReason());
    }
  }

  private static int ipv6Prefix(SluiceProperties p) {
    int prefix = integer(p, IPV6_PREFIX, TrustedProxies.DEFAULT_IPV6_PREFIX, 1);
    if (prefix > 128) {
      throw new SluiceConfigException(IPV6_PREFIX, Integer.toString(prefix), "must be 1..128");
    }
    return prefix;
  }

  private static FailurePolicy failurePolicy(SluiceProperties p) {
    String v = p.get(REDIS_ON_FAILURE).orElse("local");
    try {
      return FailurePolicy.parse(v);
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(REDIS_ON_FAILURE, v, "allowed: local, allow, deny");
    }
  }

  private static List<String> paths(String list) {
    List<String> out = new ArrayList<>();
    for (String part : list.split(",")) {
      String path = part.trim();
      if (!path.isEmpty()) {
        if (!path.startsWith("/")) {
          throw new SluiceConfigException(BYPASS_PATHS, path, "a path must start with /");
        }
        out.add(path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path);
      }
    }
    return List.copyOf(out);
  }

  /** Exact health paths and anything below them ({@code /health/db}) are never limited. */
  boolean bypassed(String path) {
    for (String p : bypassPaths) {
      if (path.equals(p) || (path.startsWith(p) && path.charAt(p.length()) == '/')) {
        return true;
      }
    }
    return false;
  }
}
