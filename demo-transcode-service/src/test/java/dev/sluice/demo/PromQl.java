package dev.sluice.demo;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL expression reads: its series selectors (metric name and label matchers) and the
 * labels it groups or joins on. Enough for the expressions of ops/ (no string outside a matcher,
 * no metric name only in {@code {__name__=...}}), not a PromQL parser.
 */
final class PromQl {

  /** {@code name op "value"} inside a selector's braces. */
  record LabelMatcher(String label, String op, String value) {}

  /** One series selector: a metric name and its label matchers. */
  record Selector(String metric, List<LabelMatcher> matchers) {}

  private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
  private static final Pattern IDENTIFIER_OR_BRACES =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)?\\s*(\\{[^}]*\\})?");
  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset");

  final List<Selector> selectors = new ArrayList<>();
  final Set<String> groupingLabels = new LinkedHashSet<>();

  PromQl(String expr) {
    String rest = RANGE.matcher(expr).replaceAll(" ");
    Matcher grouping = GROUPING.matcher(rest);
    while (grouping.find()) {
      for (String label : grouping.group(2).split(",")) {
        if (!label.isBlank()) {
          groupingLabels.add(label.strip());
        }
      }
    }
    rest = GROUPING.matcher(rest).replaceAll(" ");
    Matcher m = IDENTIFIER_OR_BRACES.matcher(rest);
    while (m.find()) {
      String name = m.group(1);
      String braces = m.group(2);
      if (name == null && braces == null) {
        continue;
      }
      boolean call = rest.substring(m.end()).stripLeading().startsWith("(");
      if (name != null && braces == null && (call || KEYWORDS.contains(name))) {
        continue; // a function, an aggregation or an operator
      }
      List<LabelMatcher> matchers = new ArrayList<>();
      if (braces != null) {
        Matcher lm = MATCHER.matcher(braces);
        while (lm.find()) {
          matchers.add(new LabelMatcher(lm.group(1), lm.group(2), lm.group(3)));
        }
      }
      selectors.add(new Selector(name, matchers));
    }
  }

  /** Grafana's {@code label_values(metric, label)}, as a selector of the metric and the label. */
  static PromQl labelValues(String query) {
    Matcher m = Pattern.compile(
            "label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*(\\w+)\\s*\\)")
        .matcher(query);
    if (!m.find()) {
      throw new IllegalArgumentException("not a label_values query: " + query);
    }
    PromQl q = new PromQl(m.group(1));
    q.groupingLabels.add(m.group(2));
    return q;
  }
}
