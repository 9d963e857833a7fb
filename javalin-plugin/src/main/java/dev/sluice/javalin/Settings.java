package dev.sluice.javalin;

import dev.sluice.config.CpuSignals;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import dev.sluice.config.UnknownKeys;
import dev.sluice.http.TrustedProxies;
import dev.sluice.store.FailurePolicy;
import dev.sluice.time.NanoClock;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What the plugin runs with: the resolved {@link SluiceSettings} of limiter-config, and what only
 * an HTTP door makes of them (the trusted proxies, the unread-body bounds). Immutable; a reload
 * resolves a new one.
 */
final class Settings {

  private final SluiceSettings resolved;
  private final TrustedProxies proxies; // read on every request that needs the client address

  private Settings(SluiceSettings resolved, TrustedProxies proxies) {
    this.resolved = resolved;
    this.proxies = proxies;
  }

  /**
   * Parses and checks every key.
   *
   * @param code the limiters declared in code, in declaration order
   * @throws SluiceConfigException at the first bad value, naming key, value and source
   */
  static Settings resolve(SluiceProperties p, Map<String, LimiterConfig.Builder> code) {
    return resolve(p, code, CpuSignals.JVM);
  }

  /**
   * Parses and checks every key.
   *
   * @param code the limiters declared in code, in declaration order
   * @param cpu the CPU signals behind {@code cpu-source=machine} and {@code process}
   * @throws SluiceConfigException at the first bad value, naming key, value and source
   */
  static Settings resolve(
      SluiceProperties p, Map<String, LimiterConfig.Builder> code, CpuSignals cpu) {
    SluiceSettings s = SluiceSettings.resolve(p, code, cpu);
    return new Settings(s, TrustedProxies.of(s, p));
  }

  /**
   * Parses every key, then the strict check of unknown keys (so a bad value is reported first).
   *
   * @param warnings where unknown keys go with {@code sluice.strict=false}
   */
  static Settings resolveChecked(
      SluiceProperties p,
      Map<String, LimiterConfig.Builder> code,
      CpuSignals cpu,
      Warnings warnings) {
    Settings s = resolve(p, code, cpu);
    UnknownKeys.check(p, s.limiters().keySet(), s.strict(), warnings);
    return s;
  }

  /** The settings every door shares. */
  SluiceSettings resolved() {
    return resolved;
  }

  Map<String, LimiterConfig> limiters() {
    return resolved.limiters();
  }

  boolean enabled() {
    return resolved.enabled();
  }

  boolean strict() {
    return resolved.strict();
  }

  Optional<Path> rulesFile() {
    return resolved.rulesFile();
  }

  Duration rulesReloadInterval() {
    return resolved.rulesReloadInterval();
  }

  Optional<URI> rulesRemote() {
    return resolved.rulesRemote();
  }

  String accountHeader() {
    return resolved.accountHeader();
  }

  Optional<String> accountAttribute() {
    return resolved.accountAttribute();
  }

  String deviceHeader() {
    return resolved.deviceHeader();
  }

  Optional<URI> redisUri() {
    return resolved.redisUri();
  }

  Duration redisTimeout() {
    return resolved.redisTimeout();
  }

  Duration redisConnectTimeout() {
    return resolved.redisConnectTimeout();
  }

  int redisExpectedNodes() {
    return resolved.redisExpectedNodes();
  }

  FailurePolicy redisOnFailure() {
    return resolved.redisOnFailure();
  }

  /** The trusted proxies, the one header they write, and the IPv6 prefix IP rules key by. */
  TrustedProxies trustedProxies() {
    return proxies;
  }

  SluiceSettings.Statuses statuses() {
    return resolved.statuses();
  }

  boolean draftHeaders() {
    return resolved.draftHeaders();
  }

  boolean xHeaders() {
    return resolved.xHeaders();
  }

  boolean concurrencyHeaders() {
    return resolved.concurrencyHeaders();
  }

  /** How much of a refused request's unread body is read and dropped, and for how long. */
  UnreadBody unreadBody(NanoClock clock) {
    return new UnreadBody(
        resolved.get(SluiceKeys.DISCARD_BODY), resolved.get(SluiceKeys.DISCARD_TIME), clock);
  }

  Duration drainTimeout() {
    return resolved.drainTimeout();
  }

  Duration reloadInterval() {
    return resolved.reloadInterval();
  }

  Optional<String> dashboardPath() {
    return resolved.dashboardPath();
  }

  /** Exact health paths and anything below them ({@code /health/db}) are never limited. */
  boolean bypassed(String path) {
    return resolved.bypassed(path);
  }
}
