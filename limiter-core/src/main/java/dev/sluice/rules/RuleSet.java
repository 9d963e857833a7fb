package dev.sluice.rules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable set of rules with unique ids, indexed by path so that finding the rules of a request
 * costs a walk down the path's segments, not a scan of every rule.
 *
 * <p>Order (the Diana design's "broadest first"): a rule whose resource reaches less deep comes
 * first ({@code /**} before {@code /api/**} before {@code /api/history}); at equal depth, wildcard
 * segments before literal ones and a subtree before a single path; then rules for every method
 * before rules for one method; then the order given.
 */
public final class RuleSet {

  private static final int[] NONE = new int[0];
  private static final RuleSet EMPTY = new RuleSet(List.of());

  private static final Comparator<Rule> BROADEST_FIRST = Comparator.<Rule>comparingInt(
          r -> r.resource().depth())
      .thenComparingInt(r -> r.resource().literalSegments())
      .thenComparing(r -> !r.resource().isSubtree())
      .thenComparing(r -> r.method().isPresent());

  private final List<Rule> rules;
  private final List<Rule> ordered;
  private final PathIndex index;
  private final String[] methods; // by position in ordered; null: every method

  private RuleSet(List<Rule> given) {
    this.rules = List.copyOf(given);
    List<Rule> sorted = new ArrayList<>(rules);
    sorted.sort(BROADEST_FIRST); // stable: ties keep the given order
    this.ordered = List.copyOf(sorted);
    this.index = new PathIndex(ordered);
    this.methods = ordered.stream().map(r -> r.method().orElse(null)).toArray(String[]::new);
  }

  /**
   * A rule set of these rules.
   *
   * @throws IllegalArgumentException naming a duplicate id
   */
  public static RuleSet of(List<Rule> rules) {
    Objects.requireNonNull(rules, "rules");
    Set<String> ids = new HashSet<>();
    for (Rule rule : rules) {
      Objects.requireNonNull(rule, "rule");
      if (!ids.add(rule.id())) {
        throw new IllegalArgumentException("duplicate rule id '" + rule.id() + "'");
      }
    }
    return rules.isEmpty() ? EMPTY : new RuleSet(rules);
  }

  /** A rule set without rules. */
  public static RuleSet empty() {
    return EMPTY;
  }

  /** The rules in the order given. */
  public List<Rule> rules() {
    return rules;
  }

  /** The rules that guard a request with this method and path, broadest first. */
  public List<Rule> matching(String method, String path) {
    int[] positions = match(method, path);
    List<Rule> found = new ArrayList<>(positions.length);
    for (int position : positions) {
      found.add(ordered.get(position));
    }
    return found;
  }

  /** The rules broadest first; {@link #match} answers positions in this list. */
  List<Rule> ordered() {
    return ordered;
  }

  /**
   * Positions in {@link #ordered()} of the rules matching the request, ascending. The array may be
   * shared with other calls (a request whose rules all match its method allocates nothing): read
   * it, never write it.
   */
  int[] match(String method, String path) {
    if (ordered.isEmpty() || path == null) {
      return NONE;
    }
    int[] candidates = index.candidates(path);
    int kept = 0;
    for (int candidate : candidates) {
      if (forMethod(candidate, method)) {
        kept++;
      }
    }
    if (kept == candidates.length) {
      return candidates;
    }
    int[] result = new int[kept];
    kept = 0;
    for (int candidate : candidates) {
      if (forMethod(candidate, method)) {
        result[kept++] = candidate;
      }
    }
    return result;
  }

  private boolean forMethod(int position, String method) {
    String only = methods[position];
    return only == null || only.equalsIgnoreCase(method);
  }

  /** The rule with this id, if any. */
  public Optional<Rule> rule(String id) {
    return rules.stream().filter(r -> r.id().equals(id)).findFirst();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RuleSet that && rules.equals(that.rules);
  }

  @Override
  public int hashCode() {
    return rules.hashCode();
  }

  @Override
  public String toString() {
    return "RuleSet" + ordered.stream().map(Rule::id).toList();
  }
}
