package dev.sluice.javalin;

import dev.sluice.store.FailurePolicy;
import dev.sluice.time.NanoClock;
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
 * What the plugin runs with: every plugin-wide key of {@link SluiceKeys} parsed from {@link
 * SluiceProperties}, and every limiter as a {@link LimiterConfig} (code first, properties parsed
 * onto the same builder). Immutable; a reload resolves a new one.
 */
final class Settings {

  /** The statuses of the four answers. */
  record Statuses(int queueFull, int queueTimeout, int rateLimited, int shuttingDown) {}

  private final Map<Key<?>, Object> values;
  private final Map<String, LimiterConfig> limiters;
  private final Statuses statuses;
  private final List<String> bypass; // read on every request: a field, not a map lookup
  private final TrustedProxies proxies; // read on every request that needs the client address

  private Settings(Map<Key<?>, Object> values, Map<String, LimiterConfig> limiters) {
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
    TrustedProxies.Header header =
        get(SluiceKeys.FORWARDED_HEADER) == SluiceKeys.ForwardedHeader.FORWARDED
            ? TrustedProxies.Header.FORWARDED
            : TrustedProxies.Header.X_FORWARDED_FOR;
    this.proxies = get(SluiceKeys.TRUSTED_PROXIES).with(header, get(SluiceKeys.IPV6_PREFIX));
    this.statuses = new Statuses(
        get(SluiceKeys.STATUS_QUEUE_FULL),
        get(SluiceKeys.STATUS_QUEUE_TIMEOUT),
        get(SluiceKeys.STATUS_RATE_LIMITED),
        get(SluiceKeys.STATUS_SHUTTING_DOWN));
  }

  /**
   * Parses and checks every key.
   *
   * @param code the limiters declared in code, in declaration order
   * @throws SluiceConfigException at the first bad value, naming key, value and source
   */
  static Settings resolve(SluiceProperties p, Map<String, LimiterConfig.Builder> code) {
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
          code.containsKey(name) ? code.get(name).copy() : LimiterConfig.custom(name);
      for (Key<?> key : LimiterKeys.ALL) {
        String property = LimiterConfig.property(name, key);
        p.get(property).ifPresent(raw -> b.parse(key, raw, p.source(property).orElse(null)));
      }
      limiters.put(name, b.build());
    }
    return new Settings(Collections.unmodifiableMap(values), Collections.unmodifiableMap(limiters));
  }

  /** A plugin-wide key's value (its default when not set; null for an unset optional key). */
  @SuppressWarnings("unchecked")
  <T> T get(Key<T> key) {
    return (T) values.get(key);
  }

  Map<String, LimiterConfig> limiters() {
    return limiters;
  }

  boolean enabled() {
    return get(SluiceKeys.ENABLED);
  }

  boolean strict() {
    return get(SluiceKeys.STRICT);
  }

  Optional<Path> rulesFile() {
    return Optional.ofNullable(get(SluiceKeys.RULES_FILE)).map(Path::of);
  }

  Duration rulesReloadInterval() {
    return get(SluiceKeys.RULES_RELOAD_INTERVAL);
  }

  Optional<URI> rulesRemote() {
    return Optional.ofNullable(get(SluiceKeys.RULES_REMOTE));
  }

  String accountHeader() {
    return get(SluiceKeys.ACCOUNT_HEADER);
  }

  Optional<String> accountAttribute() {
    return Optional.ofNullable(get(SluiceKeys.ACCOUNT_ATTRIBUTE));
  }

  String deviceHeader() {
    return get(SluiceKeys.DEVICE_HEADER);
  }

  /** The trusted proxies, the one header they write, and the IPv6 prefix IP rules key by. */
  TrustedProxies trustedProxies() {
    return proxies;
  }

  Optional<URI> redisUri() {
    return Optional.ofNullable(get(SluiceKeys.REDIS_URI));
  }

  Duration redisTimeout() {
    return get(SluiceKeys.REDIS_TIMEOUT);
  }

  Duration redisConnectTimeout() {
    return get(SluiceKeys.REDIS_CONNECT_TIMEOUT);
  }

  int redisExpectedNodes() {
    return get(SluiceKeys.REDIS_EXPECTED_NODES);
  }

  FailurePolicy redisOnFailure() {
    return get(SluiceKeys.REDIS_ON_FAILURE);
  }

  List<String> bypassPaths() {
    return bypass;
  }

  Statuses statuses() {
    return statuses;
  }

  boolean draftHeaders() {
    return get(SluiceKeys.HEADERS_DRAFT);
  }

  boolean xHeaders() {
    return get(SluiceKeys.HEADERS_X);
  }

  boolean concurrencyHeaders() {
    return get(SluiceKeys.HEADERS_CONCURRENCY);
  }

  /** How much of a refused request's unread body is read and dropped, and for how long. */
  UnreadBody unreadBody(NanoClock clock) {
    return new UnreadBody(get(SluiceKeys.DISCARD_BODY), get(SluiceKeys.DISCARD_TIME), clock);
  }

  Duration drainTimeout() {
    return get(SluiceKeys.DRAIN_TIMEOUT);
  }

  Duration reloadInterval() {
    return get(SluiceKeys.RELOAD_INTERVAL);
  }

  Optional<String> dashboardPath() {
    return Optional.ofNullable(get(SluiceKeys.DASHBOARD_PATH));
  }

  /** Exact health paths and anything below them ({@code /health/db}) are never limited. */
  boolean bypassed(String path) {
    for (int i = 0; i < bypass.size(); i++) { // indexed: no iterator per request
      String p = bypass.get(i);
      if (path.equals(p) || (path.startsWith(p) && path.charAt(p.length()) == '/')) {
        return true;
      }
    }
    return false;
  }
}
