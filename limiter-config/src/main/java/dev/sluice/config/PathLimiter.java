package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.request.ResourcePattern;
import java.util.List;
import java.util.Objects;

/**
 * A door's limiter on the paths it guards: its {@link LimiterConfig}, the {@code path} pattern
 * read from it, the core {@link ConcurrencyLimiter} built from its spec, and its {@link
 * QueueCallers}. The servlet filter matches the request path within the application, the gRPC
 * interceptor the method's HTTP/2 path ({@code /package.Service/Method}).
 *
 * <pre>{@code
 * PathLimiter work = new PathLimiter(config, ConcurrencyLimiter.builder(config.name())
 *     .spec(config.spec())
 *     .build());
 * PathLimiter guard = PathLimiter.first(List.of(work), "/api/work");
 * }</pre>
 */
public final class PathLimiter implements DoorLimiter {

  private final LimiterConfig config;
  private final ResourcePattern pattern;
  private final ConcurrencyLimiter limiter;
  private final QueueCallers callers;

  /**
   * The limiter {@code limiter} on the paths of {@code config}.
   *
   * @throws IllegalArgumentException when {@code config} has no {@code path}: a door checks it
   *     first and refuses it with its own {@link SluiceConfigException}
   */
  public PathLimiter(LimiterConfig config, ConcurrencyLimiter limiter) {
    this(
        config,
        ResourcePattern.parse(Objects.requireNonNull(config, "config")
            .path()
            .orElseThrow(
                () -> new IllegalArgumentException("limiter '" + config.name() + "' has no path"))),
        limiter);
  }

  /**
   * The limiter {@code limiter} on the paths {@code pattern} matches, whatever {@code config}'s own
   * {@code path}: a limiter another door owns, shared by a door that guards other paths with it
   * (the gRPC interceptor's methods beside the plugin's endpoint). The queue discipline is still
   * {@code config}'s.
   *
   * @throws IllegalArgumentException naming the pattern when it is malformed (see {@link
   *     LimiterConfig.Builder#path})
   */
  public PathLimiter(LimiterConfig config, String pattern, ConcurrencyLimiter limiter) {
    this(config, ResourcePattern.parse(pattern), limiter);
  }

  private PathLimiter(LimiterConfig config, ResourcePattern pattern, ConcurrencyLimiter limiter) {
    this.config = Objects.requireNonNull(config, "config");
    this.pattern = Objects.requireNonNull(pattern, "pattern");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.callers = new QueueCallers(config.queue());
  }

  /** The pattern of the paths it guards, as written. */
  public String pattern() {
    return pattern.toString();
  }

  /**
   * Whether {@code other} guards the same paths: the same pattern, empty segments aside ({@code
   * /a//b} is {@code /a/b}).
   */
  public boolean guardsSamePaths(PathLimiter other) {
    return pattern.equals(other.pattern);
  }

  /**
   * Whether some path of exactly {@code segments} segments can match (a gRPC method's path has
   * two): a pattern of another depth, without a trailing {@code **} to reach it, guards none.
   */
  public boolean reachesDepth(int segments) {
    return pattern.isSubtree() ? pattern.depth() <= segments : pattern.depth() == segments;
  }

  /**
   * The first of {@code limiters} whose pattern matches {@code path}, or null: the limiters are
   * tried in declaration order (see {@link DoorLimiter#first}).
   */
  public static PathLimiter first(List<PathLimiter> limiters, String path) {
    return DoorLimiter.first(limiters, path);
  }

  /** The limiter's name. */
  @Override
  public String name() {
    return config.name();
  }

  /** The settings it was built from. */
  @Override
  public LimiterConfig config() {
    return config;
  }

  /** The core limiter. */
  @Override
  public ConcurrencyLimiter limiter() {
    return limiter;
  }

  /** How its waiting requests queue (their key and class). */
  @Override
  public QueueCallers callers() {
    return callers;
  }

  /** Whether this limiter guards {@code path}. */
  @Override
  public boolean guards(String path) {
    return pattern.matches(path);
  }
}
