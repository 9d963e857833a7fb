package dev.sluice.rules;

import dev.sluice.rate.RateLimiter;
import dev.sluice.request.RequestInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * An immutable pairing of a {@link RuleSet} with each rule's counting state, swapped in whole by
 * {@link RateRules#replace} so that a request sees either the old rules or the new ones, never a mix.
 */
final class ActiveRules {

  final RuleSet rules;
  /** Aligned with {@link RuleSet#ordered()}. */
  final Counted[] counted;

  final Map<String, Counted> byId;
  /** No rule is counted in the shared store: every request is decided on this node, at once. */
  final boolean allLocal;

  private ActiveRules(RuleSet rules, Counted[] counted, Map<String, Counted> byId) {
    this.rules = rules;
    this.counted = counted;
    this.byId = byId;
    boolean local = true;
    for (Counted c : counted) {
      local &= c.local != null;
    }
    this.allLocal = local;
  }

  static ActiveRules empty() {
    return new ActiveRules(RuleSet.empty(), new Counted[0], Map.of());
  }

  /**
   * The new rules, carrying over the counter of every rule whose identity and limits are unchanged.
   *
   * @param counter makes the counter of a new or changed rule; {@code null} answer = counted in the
   *     shared store
   */
  static ActiveRules of(
      RuleSet rules,
      ActiveRules previous,
      Function<Rule, Function<RequestInfo, String>> keys,
      Function<Rule, RateLimiter> counter) {
    List<Rule> ordered = rules.ordered();
    Counted[] counted = new Counted[ordered.size()];
    Map<String, Counted> byId = new HashMap<>();
    for (int i = 0; i < counted.length; i++) {
      Rule rule = ordered.get(i);
      Counted old = previous.byId.get(rule.id());
      RateLimiter kept = old != null && old.rule.sameCounting(rule) ? old.local : null;
      Counted entry =
          new Counted(rule, keys.apply(rule), kept != null ? kept : counter.apply(rule));
      counted[i] = entry;
      byId.put(rule.id(), entry);
    }
    return new ActiveRules(rules, counted, Map.copyOf(byId));
  }

  /** A rule with its key extractor and, unless it is counted in the shared store, its counter. */
  static final class Counted {
    final Rule rule;
    final Function<RequestInfo, String> key;
    final RateLimiter local;

    Counted(Rule rule, Function<RequestInfo, String> key, RateLimiter local) {
      this.rule = rule;
      this.key = key;
      this.local = local;
    }
  }
}
