package dev.sluice.javalin;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Every property key Sluice understands (besides {@code sluice.limiters.<name>.*}). */
final class SluiceKeys {

  static final String ENABLED = "sluice.enabled";
  static final String RULES_FILE = "sluice.rules.file";
  static final String RULES_RELOAD_INTERVAL = "sluice.rules.reload-interval";
  static final String RULES_REMOTE = "sluice.rules.remote-url";
  static final String ACCOUNT_HEADER = "sluice.actor.account-header";
  static final String ACCOUNT_ATTRIBUTE = "sluice.actor.account-attribute";
  static final String DEVICE_HEADER = "sluice.actor.device-header";
  static final String TRUSTED_PROXIES = "sluice.trusted-proxies";
  static final String FORWARDED_HEADER = "sluice.forwarded-header";
  static final String IPV6_PREFIX = "sluice.ipv6-prefix";
  static final String REDIS_URI = "sluice.redis.uri";
  static final String REDIS_TIMEOUT = "sluice.redis.timeout";
  static final String REDIS_CONNECT_TIMEOUT = "sluice.redis.connect-timeout";
  static final String REDIS_EXPECTED_NODES = "sluice.redis.expected-nodes";
  static final String REDIS_ON_FAILURE = "sluice.redis.on-failure";
  static final String BYPASS_PATHS = "sluice.bypass-paths";
  static final String STATUS_QUEUE_FULL = "sluice.status.queue-full";
  static final String STATUS_QUEUE_TIMEOUT = "sluice.status.queue-timeout";
  static final String STATUS_RATE_LIMITED = "sluice.status.rate-limited";
  static final String STATUS_SHUTTING_DOWN = "sluice.status.shutting-down";
  static final String HEADERS_DRAFT = "sluice.headers.ratelimit";
  static final String HEADERS_X = "sluice.headers.x-ratelimit";
  static final String DRAIN_TIMEOUT = "sluice.shutdown.drain-timeout";
  static final String RELOAD_INTERVAL = "sluice.reload-interval";

  static final List<String> ALL =
      List.of(ENABLED, RULES_FILE, RULES_RELOAD_INTERVAL, RULES_REMOTE, ACCOUNT_HEADER, ACCOUNT_ATTRIBUTE,
          DEVICE_HEADER, TRUSTED_PROXIES, FORWARDED_HEADER, IPV6_PREFIX, REDIS_URI, REDIS_TIMEOUT,
          REDIS_CONNECT_TIMEOUT, REDIS_EXPECTED_NODES, REDIS_ON_FAILURE, BYPASS_PATHS, STATUS_QUEUE_FULL, STATUS_QUEUE_TIMEOUT,
          STATUS_RATE_LIMITED, STATUS_SHUTTING_DOWN, HEADERS_DRAFT, HEADERS_X, DRAIN_TIMEOUT,
          RELOAD_INTERVAL);

  private static final Map<String, String> BY_ENV_FORM =
      ALL.stream().collect(Collectors.toMap(SluiceProperties::envForm, Function.identity()));

  private SluiceKeys() {}

  /** The key whose environment form is {@code var}, or null. */
  static String byEnvForm(String var) {
    return BY_ENV_FORM.get(var);
  }

  static boolean isKnown(String key) {
    return ALL.contains(key) || SluiceProperties.limiterKey(key).isPresent();
  }
}
