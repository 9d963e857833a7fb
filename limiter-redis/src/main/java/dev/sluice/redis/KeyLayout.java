package dev.sluice.redis;

import dev.sluice.rate.Algorithm;

/**
 * Names of the keys Sluice keeps in Redis.
 *
 * <pre>
 * sluice:rate:{&lt;rule&gt;:&lt;actor&gt;}:&lt;algorithm&gt;   rate state of one rule and actor
 * sluice:rate:{&lt;rule&gt;:&lt;actor&gt;}:&lt;algorithm&gt;:charges   the charges it counted (ids)
 * sluice:permits:{&lt;limiter&gt;}                 concurrency leases of one global limiter
 * sluice:permits:{&lt;limiter&gt;}:line            its waiting tickets, by arrival
 * sluice:permits:{&lt;limiter&gt;}:line-ttl        when each ticket is forgotten
 * sluice:permits:{&lt;limiter&gt;}:freed           pub/sub channel: a permit may have come free
 * </pre>
 *
 * <p>The part in braces is the Cluster hash tag: everything Sluice stores for one rule and actor
 * lives in one slot, so a script never touches two slots (no CROSSSLOT), and different actors
 * spread over the cluster. Braces and {@code %} inside names are percent-encoded, so an actor such
 * as {@code a}b} can neither cut the tag short nor collide with another actor's tag. A rule id's
 * colons are encoded too: the first colon in the tag is always the one between rule and actor, so
 * rule {@code a} with actor {@code b:c} and rule {@code a:b} with actor {@code c} are two keys
 * (actors keep their colons, so an IPv6 actor's key reads as its address). The algorithm
 * is part of the name so that changing a rule's algorithm starts from fresh state instead of
 * misreading the old one (a WRONGTYPE error at best).
 */
final class KeyLayout {

  private static final String PREFIX = "sluice:";

  private KeyLayout() {}

  static String rate(String ruleId, String actorKey, Algorithm algorithm) {
    return PREFIX + "rate:{" + escapeRule(ruleId) + ':' + escape(actorKey) + "}:" + algorithm.id();
  }

  /** The ids of the charges counted for the rate state {@code state} (same slot). */
  static String charges(String state) {
    return state + ":charges";
  }

  static String permits(String limiter) {
    return PREFIX + "permits:{" + escape(limiter) + '}';
  }

  static String permitLine(String limiter) {
    return permits(limiter) + ":line";
  }

  static String permitLineTtl(String limiter) {
    return permits(limiter) + ":line-ttl";
  }

  /** The pub/sub channel on which a limiter's freed permits are announced. */
  static String permitsFreed(String limiter) {
    return permits(limiter) + ":freed";
  }

  /** {@link #escape} and the colons too: an encoded rule id holds none. */
  private static String escapeRule(String ruleId) {
    String escaped = escape(ruleId);
    return escaped.indexOf(':') < 0 ? escaped : escaped.replace(":", "%3A");
  }

  private static String escape(String part) {
    if (part.indexOf('{') < 0 && part.indexOf('}') < 0 && part.indexOf('%') < 0) {
      return part;
    }
    return part.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
  }
}
