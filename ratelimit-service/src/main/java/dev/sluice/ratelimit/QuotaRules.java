package dev.sluice.ratelimit;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which quota each RLQS bucket gets, from {@code sluice.ratelimit-service.quota.*}:
 *
 * <pre>
 * sluice.ratelimit-service.quota.default=unlimited                 # buckets no rule covers
 * sluice.ratelimit-service.quota.buckets.checkout.match=name=checkout,env=prod
 * sluice.ratelimit-service.quota.buckets.checkout.rate=100/1s
 * sluice.ratelimit-service.quota.assignment-ttl=                   # empty: 3 reporting intervals
 * </pre>
 *
 * A bucket gets the rule whose {@code match} it satisfies with the most entries (ties: the first
 * name in alphabetical order), else the default.
 *
 * @param rules the rules, most specific first
 * @param fallback the quota of a bucket no rule covers
 * @param assignmentTtl the TTL of every assignment; empty: three of the bucket's reporting
 *     intervals
 */
record QuotaRules(List<QuotaRule> rules, QuotaRate fallback, Optional<Duration> assignmentTtl) {

  static final String PREFIX = "sluice.ratelimit-service.quota.";
  static final String DEFAULT = PREFIX + "default";
  static final String ASSIGNMENT_TTL = PREFIX + "assignment-ttl";
  static final String BUCKETS = PREFIX + "buckets.";
  static final List<String> RULE_SUFFIXES = List.of("match", "rate");

  /** No rules: every bucket unlimited. */
  static final QuotaRules ALLOW_ALL =
      new QuotaRules(List.of(), QuotaRate.UNLIMITED, Optional.empty());

  QuotaRules {
    rules = List.copyOf(rules);
  }

  /** The quota of the bucket {@code bucketId}. */
  QuotaRate rateFor(Map<String, String> bucketId) {
    for (QuotaRule rule : rules) {
      if (rule.covers(bucketId)) {
        return rule.rate();
      }
    }
    return fallback;
  }

  /** The keys of the rules present in {@code p}, for the check of unknown keys. */
  static List<String> keysIn(SluiceProperties p) {
    List<String> keys = new ArrayList<>(List.of(DEFAULT, ASSIGNMENT_TTL));
    for (String name : ruleNames(p)) {
      RULE_SUFFIXES.forEach(suffix -> keys.add(BUCKETS + name + "." + suffix));
    }
    return keys;
  }

  private static TreeSet<String> ruleNames(SluiceProperties p) {
    TreeSet<String> names = new TreeSet<>();
    for (String key : p.asMap().keySet()) {
      if (key.startsWith(BUCKETS)) {
        String rest = key.substring(BUCKETS.length());
        int dot = rest.lastIndexOf('.');
        if (dot > 0 && RULE_SUFFIXES.contains(rest.substring(dot + 1))) {
          names.add(rest.substring(0, dot));
        }
      }
    }
    return names;
  }

  /**
   * Reads the rules in {@code p}.
   *
   * @throws SluiceConfigException naming the key, the value and its source
   */
  static QuotaRules from(SluiceProperties p) {
    QuotaRate fallback = p.get(DEFAULT)
        .filter(s -> !s.isBlank())
        .map(raw -> QuotaRate.parse(DEFAULT, raw, p.source(DEFAULT).orElse(null)))
        .orElse(QuotaRate.UNLIMITED);
    Optional<Duration> ttl = p.get(ASSIGNMENT_TTL).filter(s -> !s.isBlank()).map(raw -> {
      try {
        Duration d = DurationText.parse(raw);
        if (d.isZero()) {
          throw new IllegalArgumentException("must be more than 0 (0 expires at once)");
        }
        return d;
      } catch (IllegalArgumentException e) {
        throw new SluiceConfigException(
            ASSIGNMENT_TTL, raw, p.source(ASSIGNMENT_TTL).orElse(null), e.getMessage());
      }
    });
    List<QuotaRule> rules = new ArrayList<>();
    for (String name : ruleNames(p)) {
      String matchKey = BUCKETS + name + ".match";
      String rateKey = BUCKETS + name + ".rate";
      String rawRate = p.get(rateKey)
          .orElseThrow(() -> new SluiceConfigException(
              rateKey, null, p.source(matchKey).orElse(null), "required with " + matchKey));
      QuotaRate rate = QuotaRate.parse(rateKey, rawRate, p.source(rateKey).orElse(null));
      String rawMatch = p.get(matchKey)
          .orElseThrow(() -> new SluiceConfigException(
              matchKey, null, p.source(rateKey).orElse(null), "required with " + rateKey));
      rules.add(
          new QuotaRule(name, match(matchKey, rawMatch, p.source(matchKey).orElse(null)), rate));
    }
    rules.sort(
        Comparator.comparingInt((QuotaRule r) -> -r.match().size()).thenComparing(QuotaRule::name));
    return new QuotaRules(rules, fallback, ttl);
  }

  /** {@code name=checkout,env=prod}: the entries a bucket id must carry. */
  static Map<String, String> match(String key, String raw, String source) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : raw.split(",", -1)) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? "" : pair.substring(0, eq).trim();
      String v = eq < 0 ? "" : pair.substring(eq + 1).trim();
      if (k.isEmpty() || v.isEmpty()) {
        throw new SluiceConfigException(
            key, raw, source, "must be bucket_id entries key=value, separated by commas");
      }
      if (out.put(k, v) != null) {
        throw new SluiceConfigException(key, raw, source, "the entry '" + k + "' is given twice");
      }
    }
    return out;
  }
}
