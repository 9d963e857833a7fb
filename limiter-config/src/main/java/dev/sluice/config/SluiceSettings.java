package dev.sluice.config;

import dev.sluice.store.FailurePolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a door runs with: every plugin-wide key of {@link SluiceKeys} parsed from {@link
 * SluiceProperties}, and every limiter as a {@link LimiterConfig} (code first, properties parsed
 * onto the same builder). Immutable; a reload resolves a new one.
 */
public final class SluiceSettings {

  /** The statuses of the four answers. */
  public record Statuses(int queueFull, int queueTimeout, int rateLimited, int shuttingDown) {}

  private final Map<Key<?>, Object> values;
  private final Map<String, LimiterConfig> limiters;
  private final Statuses statuses;
  private final List<String> bypass; // read on every request: a field, not a map lookup

  private SluiceSettings(Map<Key<?>, Object> values, Map<String, LimiterConfig> limiters) {
    this.values = values;
    this.limiters = limiters;
    List<String> bypassed = new ArrayList<>(get(SluiceKeys.BYPASS_PATHS));
    String dashboard = get(SluiceKeys.DASHBOARD_PATH);
    if (dashboard != null) {
      // the live page is most needed when the service is saturated: never limit it
      bypassed.add(
          dashboard.endsWith("/") ? dashboard.substring(0, dashboard.length() - 1) : dashboard);
    }
    this.bypass = List.copyOf(bypassed);
    this.statuses = new Statuses(
        get(SluiceKeys.STATUS_QUEUE_FULL),
        get(SluiceKeys.STATUS_QUEUE_TIMEOUT),
        get(SluiceKeys.STATUS_RATE_LIMITED),
        get(SluiceKeys.STATUS_SHUTTING_DOWN));
  }

  /**
   * Parses and checks every key, with the JVM's own CPU signals behind {@code limit=cpu}.
   *
   * @param code the limiters declared in code, in declaration order
   * @throws SluiceConfigException at the first bad value, naming key, value and source
   */
  public static SluiceSettings resolve(
      SluiceProperties p, Map<String, LimiterConfig.Builder> code) {
    return resolve(p, code, CpuSignals.JVM);
  }

  /**
   * Parses and checks every key.
   *
   * @param code the limiters declared in code, in declaration order
   * @param cpu the CPU signals behind {@code cpu-source=machine} and {@code process}
   * @throws SluiceConfigException at the first bad value, naming key, value and source
   */
  public static SluiceSettings resolve(
      SluiceProperties p, Map<String, LimiterConfig.Builder> code, CpuSignals cpu) {
    Map<Key<?>, Object> values = new LinkedHashMap<>();
    for (Key<?> key : SluiceKeys.ALL) {
      Optional<String> raw = p.get(key.name());
      values.put(
          key,
          raw.isPresent()
              ? key.parse(key.name(), raw.get(), p.source(key.name()).orElse(null))
              : key.defaultValue());
    }
    // declaration order, code first: the first limiter whose path matches guards a request
    List<String> names = new ArrayList<>(code.keySet());
    p.limiterNames().stream().filter(n -> !names.contains(n)).forEach(names::add);
    Map<String, LimiterConfig> limiters = new LinkedHashMap<>();
    for (String name : names) {
      LimiterConfig.Builder b =
          code.containsKey(name) ? code.get(name).copy() : fromProperties(p, name);
      // properties onto the spec: each key's text through its parser into its setter
      for (LimiterKey<?> key : LimiterKeys.ALL) {
        String property = LimiterConfig.property(name, key);
        p.get(property).ifPresent(raw -> b.parse(key, raw, p.source(property).orElse(null)));
      }
      limiters.put(name, b.cpu(cpu).build());
    }
    return new SluiceSettings(
        Collections.unmodifiableMap(values), Collections.unmodifiableMap(limiters));
  }

  /**
   * A limiter only the properties declare. Its name is what stands between {@code
   * sluice.limiters.} and a known suffix, so a typo ({@code sluice.limiters.api.queue-.max-queue})
   * makes a name with a '.': refused naming the key that made it, not as a bare builder error.
   */
  private static LimiterConfig.Builder fromProperties(SluiceProperties p, String name) {
    try {
      return LimiterConfig.custom(name);
    } catch (IllegalArgumentException e) {
      String key = p.asMap().keySet().stream()
          .filter(k ->
              SluiceProperties.limiterKey(k).map(parts -> parts[0].equals(name)).orElse(false))
          .findFirst()
          .orElse(SluiceProperties.LIMITERS + name);
      throw new SluiceConfigException(
          key, p.get(key).orElse(null), p.source(key).orElse(null), e.getMessage());
    }
  }

  /** A plugin-wide key's value (its default when not set; null for an unset optional key). */
  @SuppressWarnings("unchecked")
  public <T> T get(Key<T> key) {
    return (T) values.get(key);
  }

  public Map<String, LimiterConfig> limiters() {
    return limiters;
  }

  public boolean enabled() {
    return get(SluiceKeys.ENABLED);
  }

  public boolean strict() {
    return get(SluiceKeys.STRICT);
  }

  public Optional<Path> rulesFile() {
    return Optional.ofNullable(get(SluiceKeys.RULES_FILE)).map(Path::of);
  }

  public Duration rulesReloadInterval() {
    return get(SluiceKeys.RULES_RELOAD_INTERVAL);
  }

  public Optional<URI> rulesRemote() {
    return Optional.ofNullable(get(SluiceKeys.RULES_REMOTE));
  }

  public String accountHeader() {
    return get(SluiceKeys.ACCOUNT_HEADER);
  }

  public Optional<String> accountAttribute() {
    return Optional.ofNullable(get(SluiceKeys.ACCOUNT_ATTRIBUTE));
  }

  public String deviceHeader() {
    return get(SluiceKeys.DEVICE_HEADER);
  }

  public Optional<URI> redisUri() {
    return Optional.ofNullable(get(SluiceKeys.REDIS_URI));
  }

  public Duration redisTimeout() {
    return get(SluiceKeys.REDIS_TIMEOUT);
  }

  public Duration redisConnectTimeout() {
    return get(SluiceKeys.REDIS_CONNECT_TIMEOUT);
  }

  public int redisExpectedNodes() {
    return get(SluiceKeys.REDIS_EXPECTED_NODES);
  }

  public FailurePolicy redisOnFailure() {
    return get(SluiceKeys.REDIS_ON_FAILURE);
  }

  public List<String> bypassPaths() {
    return bypass;
  }

  public Statuses statuses() {
    return statuses;
  }

  public boolean draftHeaders() {
    return get(SluiceKeys.HEADERS_DRAFT);
  }

  public boolean xHeaders() {
    return get(SluiceKeys.HEADERS_X);
  }

  public boolean concurrencyHeaders() {
    return get(SluiceKeys.HEADERS_CONCURRENCY);
  }

  public Duration drainTimeout() {
    return get(SluiceKeys.DRAIN_TIMEOUT);
  }

  public Duration reloadInterval() {
    return get(SluiceKeys.RELOAD_INTERVAL);
  }

  public Optional<String> dashboardPath() {
    return Optional.ofNullable(get(SluiceKeys.DASHBOARD_PATH));
  }

  /** Exact health paths and anything below them ({@code /health/db}) are never limited. */
  public boolean bypassed(String path) {
    for (int i = 0; i < bypass.size(); i++) { // indexed: no iterator per request
      String p = bypass.get(i);
      if (path.equals(p) || (path.startsWith(p) && path.charAt(p.length()) == '/')) {
        return true;
      }
    }
    return false;
  }
}
