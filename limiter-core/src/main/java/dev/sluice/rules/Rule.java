package dev.sluice.rules;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One rate rule: requests to {@code resource} (optionally only with {@code method}), counted per
 * {@code actor}, may number at most {@code limit} per period under {@code algorithm}; counted on this
 * node or for every node ({@code scope}); a {@code shadow} rule counts and reports but never rejects.
 *
 * <p>The {@code id} is the rule's identity: metrics, headers and shared store keys carry it, and a
 * reload keeps the counts of a rule whose id and limits did not change. When a rules file omits it,
 * it is derived from the fields that say what is counted ({@link #derivedId}), so the same rule gets
 * the same id in every file and every reload.
 *
 * @param id non-blank, at most 200 characters, no whitespace or control characters
 * @param resource the paths guarded
 * @param method an HTTP method in upper case, or empty for every method
 * @param actor who is counted
 * @param limit permits per period, with the burst
 * @param algorithm how permits are counted
 * @param scope local or global
 * @param shadow true: count and report, never reject
 */
public record Rule(
    String id,
    ResourcePattern resource,
    Optional<String> method,
    Actor actor,
    RateLimit limit,
    Algorithm algorithm,
    Scope scope,
    boolean shadow) {

  public Rule {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(scope, "scope");
    method = method.map(Rule::normalizeMethod);
    if (id == null) {
      throw new IllegalArgumentException("id must not be null");
    }
    if (id.isEmpty() || id.length() > 200 || id.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      throw new IllegalArgumentException(
          "id must have 1 to 200 characters without whitespace or control characters but was '" + id
              + "'");
    }
  }

  /** A builder; only the resource and the limit are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The id a rule without an explicit one gets: {@code actor:METHOD:resource:period}, e.g. {@code
   * account:POST:/posts:1s} or {@code ip:/signup:1d}.
   */
  public static String derivedId(
      ResourcePattern resource, Optional<String> method, Actor actor, Duration period) {
    StringBuilder id = new StringBuilder(actor.id()).append(':');
    method.ifPresent(m -> id.append(normalizeMethod(m)).append(':'));
    return id.append(resource).append(':').append(compact(period)).toString();
  }

  /** Whether this rule's counted state can carry over to {@code other} (same identity and limits). */
  boolean sameCounting(Rule other) {
    return id.equals(other.id)
        && actor.equals(other.actor)
        && limit.equals(other.limit)
        && algorithm == other.algorithm
        && scope == other.scope;
  }

  /** Whether the rule guards a request with this method and path. */
  boolean matches(String requestMethod, String path) {
    return (method.isEmpty() || method.get().equalsIgnoreCase(requestMethod))
        && resource.matches(path);
  }

  static String normalizeMethod(String method) {
    String upper = method.trim().toUpperCase(Locale.ROOT);
    if (upper.isEmpty()
        || upper.length() > 32
        || !upper.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '-' || c == '_')) {
      throw new IllegalArgumentException(
          "method must be an HTTP method such as GET or POST but was '" + method + "'");
    }
    return upper;
  }

  /** 1s, 15m, 1h, 7d, 250ms...: the largest unit that divides the period exactly. */
  static String compact(Duration period) {
    long nanos = period.toNanos();
    long[] sizes = {
      86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L
    };
    String[] names = {"d", "h", "m", "s", "ms", "us"};
    for (int i = 0; i < sizes.length; i++) {
      if (nanos % sizes[i] == 0) {
        return nanos / sizes[i] + names[i];
      }
    }
    return nanos + "ns"; // a whole number of nanoseconds, and of no larger unit
  }

  /** Builds a {@link Rule}; setters validate at once. */
  public static final class Builder {
    private String id;
    private ResourcePattern resource;
    private String method;
    private Actor actor = Actor.All.INSTANCE;
    private Long limit;
    private Duration period;
    private Long burst;
    private Algorithm algorithm = Algorithm.TOKEN_BUCKET;
    private Scope scope = Scope.LOCAL;
    private boolean shadow;

    private Builder() {}

    /** The identity; derived from the other fields when not set. */
    public Builder id(String id) {
      this.id = id;
      return this;
    }

    public Builder resource(String pattern) {
      return resource(ResourcePattern.parse(pattern));
    }

    public Builder resource(ResourcePattern pattern) {
      this.resource = Objects.requireNonNull(pattern, "resource");
      return this;
    }

    /** Only requests with this method; {@code null} for every method (the default). */
    public Builder method(String method) {
      this.method = method == null ? null : normalizeMethod(method);
      return this;
    }

    public Builder actor(Actor actor) {
      this.actor = Objects.requireNonNull(actor, "actor");
      return this;
    }

    public Builder actor(String actor) {
      return actor(Actor.parse(actor));
    }

    /** {@code limit} permits per {@code period}. */
    public Builder limit(long limit, Duration period) {
      this.limit = limit;
      this.period = period;
      return this;
    }

    /** The algorithm's capacity; defaults to the limit. */
    public Builder burst(long burst) {
      this.burst = burst;
      return this;
    }

    public Builder algorithm(Algorithm algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      return this;
    }

    public Builder scope(Scope scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
      return this;
    }

    public Builder shadow(boolean shadow) {
      this.shadow = shadow;
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException naming the missing or invalid field
     */
    public Rule build() {
      if (resource == null) {
        throw new IllegalArgumentException("resource is required");
      }
      if (limit == null) {
        throw new IllegalArgumentException("limit is required");
      }
      RateLimit rateLimit = new RateLimit(limit, period, burst == null ? limit : burst);
      Optional<String> m = Optional.ofNullable(method);
      String ruleId = id != null ? id : derivedId(resource, m, actor, period);
      return new Rule(ruleId, resource, m, actor, rateLimit, algorithm, scope, shadow);
    }
  }
}
