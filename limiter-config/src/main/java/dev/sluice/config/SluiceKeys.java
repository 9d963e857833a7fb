package dev.sluice.config;

import dev.sluice.rules.RateRules;
import dev.sluice.store.FailurePolicy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every plugin-wide property (the limiter ones, {@code sluice.limiters.<name>.*}, are in {@link
 * LimiterKeys}): name, parser and check, default, documentation.
 *
 * <p><b>To add one:</b> declare a {@code static final Key<..>} with {@link Key#of}, add it to
 * {@link #ALL} and to the README's property table (a test checks it is there), and read it where
 * it is needed with {@code settings.get(SluiceKeys.X)}. Environment variables, the strict
 * unknown-key check and the "did you mean" suggestions follow from the declaration.
 */
public final class SluiceKeys {

  /** {@code sluice.forwarded-header}: which header trusted proxies write the client address in. */
  public enum ForwardedHeader {
    X_FORWARDED_FOR,
    FORWARDED
  }

  public static final Key<Boolean> ENABLED =
      Key.of("sluice.enabled", true, ValueParser.bool(), "`false`: the plugin adds no handler");
  public static final Key<Boolean> STRICT = Key.of(
      "sluice.strict",
      true,
      ValueParser.bool(),
      "`true`: an unknown `sluice.*` key, or a limiter path or rule resource that reaches no route,"
          + " stops start-up naming it, its source and the nearest match; `false`: a warning");
  public static final Key<String> RULES_FILE = Key.of(
      "sluice.rules.file",
      null,
      ValueParser.text(),
      "rules YAML (Sluice, Diana or Lyft layout); relative to the working dir or to the properties"
          + " file; `classpath:NAME` reads a resource (not reloaded)");
  public static final Key<Duration> RULES_RELOAD_INTERVAL = Key.of(
      "sluice.rules.reload-interval",
      Duration.ofSeconds(5),
      ValueParser.duration(true),
      "how often the rules file (and the remote URL) is polled; `0s` off");
  public static final Key<URI> RULES_REMOTE = Key.of(
      "sluice.rules.remote-url",
      null,
      ValueParser.uri(),
      "http(s) URL of a rules file that wins over the local file while it answers");
  // the plugin README weighs its memory
  public static final Key<Integer> RULES_MAX_KEYS = Key.of(
      "sluice.rules.max-keys-per-rule",
      Math.toIntExact(RateRules.DEFAULT_MAX_KEYS_PER_RULE),
      ValueParser.atLeast(1),
      "the keys (actors: IPs, accounts, header values) each local rule holds at most; a new key past"
          + " it evicts the keys closest to full first; read at start-up");
  public static final Key<String> ACCOUNT_HEADER = Key.of(
      "sluice.actor.account-header",
      "X-Account-Id",
      ValueParser.headerName(),
      "account actor from a header");
  public static final Key<String> ACCOUNT_ATTRIBUTE = Key.of(
      "sluice.actor.account-attribute",
      null,
      ValueParser.text(),
      "account actor from a ctx attribute set by an auth `before` handler");
  public static final Key<String> DEVICE_HEADER =
      Key.of("sluice.actor.device-header", "X-Device-Id", ValueParser.headerName(), "device actor");
  // the CIDR list is parsed by the door that reads client addresses, naming this key
  public static final Key<String> TRUSTED_PROXIES = Key.of(
      "sluice.trusted-proxies",
      "",
      ValueParser.of(v -> v, "a CIDR list"),
      "CIDR list; only these peers may set the forwarded header");
  public static final Key<ForwardedHeader> FORWARDED_HEADER = Key.of(
      "sluice.forwarded-header",
      ForwardedHeader.X_FORWARDED_FOR,
      ValueParser.oneOf(ForwardedHeader.class),
      "the header trusted proxies write the client address in: `x-forwarded-for` or `forwarded`");
  public static final Key<Integer> IPV6_PREFIX = Key.of(
      "sluice.ipv6-prefix",
      64,
      ValueParser.integer(1, 128),
      "IP rules count IPv6 clients by this prefix (`/64`)");
  public static final Key<URI> REDIS_URI = Key.of(
      "sluice.redis.uri",
      null,
      ValueParser.uri(),
      "global scope through a `dev.sluice.store.StoreProvider` (limiter-redis)");
  public static final Key<Duration> REDIS_TIMEOUT = Key.of(
      "sluice.redis.timeout",
      Duration.ofMillis(50),
      ValueParser.duration(false),
      "bound on each store call");
  public static final Key<Duration> REDIS_CONNECT_TIMEOUT = Key.of(
      "sluice.redis.connect-timeout",
      Duration.ofSeconds(1),
      ValueParser.duration(false),
      "bound on the first connect; the node does not degrade before it has failed");
  public static final Key<Integer> REDIS_EXPECTED_NODES = Key.of(
      "sluice.redis.expected-nodes",
      1,
      ValueParser.atLeast(1),
      "local share while the store is down = limit / nodes");
  public static final Key<FailurePolicy> REDIS_ON_FAILURE = Key.of(
      "sluice.redis.on-failure",
      FailurePolicy.LOCAL,
      ValueParser.oneOf(FailurePolicy.class),
      "`local`, `allow`, `deny`");
  public static final Key<List<String>> BYPASS_PATHS = Key.of(
      "sluice.bypass-paths",
      paths("/health,/healthz,/ready,/readyz,/live,/livez"),
      ValueParser.of(SluiceKeys::paths, "comma-separated paths"),
      "never limited (also their sub-paths)");
  public static final Key<Integer> STATUS_QUEUE_FULL = status("sluice.status.queue-full", 429);
  public static final Key<Integer> STATUS_QUEUE_TIMEOUT =
      status("sluice.status.queue-timeout", 504);
  public static final Key<Integer> STATUS_RATE_LIMITED = status("sluice.status.rate-limited", 429);
  public static final Key<Integer> STATUS_SHUTTING_DOWN =
      status("sluice.status.shutting-down", 503);
  public static final Key<Boolean> HEADERS_DRAFT = Key.of(
      "sluice.headers.ratelimit",
      true,
      ValueParser.bool(),
      "IETF draft `RateLimit-Policy` / `RateLimit`");
  public static final Key<Boolean> HEADERS_X = Key.of(
      "sluice.headers.x-ratelimit",
      true,
      ValueParser.bool(),
      "`X-RateLimit-Limit` / `-Remaining` / `-Retry-After`");
  public static final Key<Boolean> HEADERS_CONCURRENCY = Key.of(
      "sluice.headers.concurrency",
      false,
      ValueParser.bool(),
      "a limiter's own `RateLimit-Policy` (`\"name\";q=<limit>;qu=\"concurrent-requests\"`) and"
          + " `RateLimit` (`r=<free permits>`) on its admitted and queue-full answers, and the"
          + " `temporary-reduced-capacity` members on its refusals while an adaptive limit is below"
          + " `max-concurrency`");
  // 8 MB: read at LAN speed behind a proxy in well under a second; the demo's uploads start at
  // 0.1 MB. The plugin README weighs it.
  public static final Key<Long> DISCARD_BODY = Key.of(
      "sluice.rejections.discard-body",
      8L << 20,
      ValueParser.size(),
      "a refused request's unread body up to this size is read and dropped before the answer, so"
          + " the client receives it; a larger one is not read (the connection is closed); `0`:"
          + " never read");
  public static final Key<Duration> DISCARD_TIME = Key.of(
      "sluice.rejections.discard-time",
      Duration.ofSeconds(5),
      ValueParser.duration(false),
      "the longest a refused request's body is read for; then the answer goes out and the"
          + " connection is closed");
  public static final Key<Duration> DRAIN_TIMEOUT = Key.of(
      "sluice.shutdown.drain-timeout",
      Duration.ofSeconds(30),
      ValueParser.duration(true),
      "how long server stop waits for in-flight requests");
  public static final Key<Duration> RELOAD_INTERVAL = Key.of(
      "sluice.reload-interval",
      Duration.ZERO,
      ValueParser.duration(true),
      "poll the properties file and apply new limits; `0s` off");
  public static final Key<String> DASHBOARD_PATH = Key.of(
      "sluice.dashboard.path",
      null,
      ValueParser.of(SluiceKeys::dashboardPath, "a path such as /sluice/dashboard"),
      "serve the live page here (its data at `<path>/data`); unset: off");

  public static final List<Key<?>> ALL = List.of(
      ENABLED,
      STRICT,
      RULES_FILE,
      RULES_RELOAD_INTERVAL,
      RULES_REMOTE,
      RULES_MAX_KEYS,
      ACCOUNT_HEADER,
      ACCOUNT_ATTRIBUTE,
      DEVICE_HEADER,
      TRUSTED_PROXIES,
      FORWARDED_HEADER,
      IPV6_PREFIX,
      REDIS_URI,
      REDIS_TIMEOUT,
      REDIS_CONNECT_TIMEOUT,
      REDIS_EXPECTED_NODES,
      REDIS_ON_FAILURE,
      BYPASS_PATHS,
      STATUS_QUEUE_FULL,
      STATUS_QUEUE_TIMEOUT,
      STATUS_RATE_LIMITED,
      STATUS_SHUTTING_DOWN,
      HEADERS_DRAFT,
      HEADERS_X,
      HEADERS_CONCURRENCY,
      DISCARD_BODY,
      DISCARD_TIME,
      DRAIN_TIMEOUT,
      RELOAD_INTERVAL,
      DASHBOARD_PATH);

  private static final Map<String, Key<?>> BY_NAME =
      ALL.stream().collect(Collectors.toMap(Key::name, Function.identity()));
  private static final Map<String, String> BY_ENV_FORM =
      ALL.stream().collect(Collectors.toMap(k -> EnvironmentKeys.envForm(k.name()), Key::name));

  private SluiceKeys() {}

  /** The plugin-wide key of this name, or null. */
  public static Key<?> byName(String name) {
    return BY_NAME.get(name);
  }

  /** The key whose environment form is {@code var}, or null. */
  public static String byEnvForm(String var) {
    return BY_ENV_FORM.get(var);
  }

  /** Whether {@code key} is a plugin-wide key or {@code sluice.limiters.<name>.<limiter key>}. */
  public static boolean isKnown(String key) {
    return BY_NAME.containsKey(key) || SluiceProperties.limiterKey(key).isPresent();
  }

  private static Key<Integer> status(String name, int dflt) {
    return Key.of(name, dflt, ValueParser.integer(400, 599), "status of that answer");
  }

  private static String dashboardPath(String raw) {
    String path = ValueParser.path().parse(raw);
    // the page and its data bypass the limiters; "/" would bypass everything
    if (path.replace("/", "").isEmpty()) {
      throw new IllegalArgumentException("must be a path below /, e.g. /sluice/dashboard");
    }
    return path;
  }

  private static List<String> paths(String list) {
    List<String> out = new ArrayList<>();
    for (String part : list.split(",")) {
      String path = part.trim();
      if (!path.isEmpty()) {
        if (!path.startsWith("/")) {
          throw new IllegalArgumentException(
              "a path must start with / but '" + path + "' does not");
        }
        out.add(
            path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path);
      }
    }
    return List.copyOf(out);
  }
}
