package dev.sluice.rules;

import dev.sluice.rate.Algorithm;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;

/** Turns the YAML nodes of one rules file into rules, with the line of every problem. */
final class RuleNodes {

  static final List<String> RULE_FIELDS = List.of(
      "id",
      "resource",
      "method",
      "actor",
      "limit",
      "unit",
      "burst",
      "algorithm",
      "scope",
      "shadow");
  static final List<String> DIANA_RULE_FIELDS =
      List.of("id", "method", "actor", "rpu", "unit", "burst", "algo", "scope", "shadow");
  static final String DIANA_ALGORITHMS = "W, SW, LB, TB (or " + Algorithm.allowedIds() + ")";

  /** A field of one layout used in the other: say which name to use instead. */
  private static final Map<String, String> OTHER_LAYOUT = Map.of(
      "rpu",
      "this layout calls it 'limit'",
      "algo",
      "this layout calls it 'algorithm'",
      "limit",
      "the Diana layout calls it 'rpu'",
      "algorithm",
      "the Diana layout calls it 'algo'",
      "resource",
      "the Diana layout takes the resource from 'Url'",
      "url",
      "'Url' belongs at the top of a Diana layout file, not in a rule");

  private final String source;

  RuleNodes(String source) {
    this.source = source;
  }

  Rule rule(Node item, String path) throws RulesFileException {
    Map<String, Node> fields = fields(mapping(item, path), path + ".", RULE_FIELDS);
    Rule.Builder rule = Rule.builder();
    Node resource = required(fields, item, path, "resource");
    rule.resource(convert(resource, path + ".resource", ResourcePattern::parse));
    rule.algorithm(optional(fields, path, "algorithm", Algorithm::fromId, Algorithm.TOKEN_BUCKET));
    return common(rule, fields, item, path, "limit");
  }

  Rule dianaRule(Node item, String path, ResourcePattern resource) throws RulesFileException {
    Map<String, Node> fields = fields(mapping(item, path), path + ".", DIANA_RULE_FIELDS);
    Rule.Builder rule = Rule.builder().resource(resource);
    rule.algorithm(
        optional(fields, path, "algo", RuleNodes::dianaAlgorithm, Algorithm.TOKEN_BUCKET));
    return common(rule, fields, item, path, "rpu");
  }

  /** The fields both layouts share. */
  private Rule common(
      Rule.Builder rule, Map<String, Node> fields, Node item, String path, String limitField)
      throws RulesFileException {
    Node limitNode = required(fields, item, path, limitField);
    long limit = convert(limitNode, path + "." + limitField, RuleNodes::positive);
    Duration period =
        convert(required(fields, item, path, "unit"), path + ".unit", RulePeriod::parse);
    rule.limit(limit, period);
    rule.burst(optional(fields, path, "burst", RuleNodes::positive, limit));
    rule.method(optional(fields, path, "method", Rule::normalizeMethod, null));
    rule.actor(optional(fields, path, "actor", Actor::parse, Actor.All.INSTANCE));
    rule.scope(optional(fields, path, "scope", Scope::parse, Scope.LOCAL));
    rule.shadow(optional(fields, path, "shadow", RuleNodes::bool, false));
    if (fields.containsKey("id")) {
      rule.id(convert(fields.get("id"), path + ".id", id -> id));
    }
    try {
      return rule.build();
    } catch (IllegalArgumentException e) {
      throw error(fields.containsKey("id") ? fields.get("id") : item, path + ".id", e.getMessage());
    }
  }

  ResourcePattern dianaUrl(Node url) throws RulesFileException {
    return convert(url, "Url", ResourcePattern::subtreeOf);
  }

  boolean hadExplicitId(Node item) {
    return item instanceof MappingNode mapping && hasKey(mapping, "id");
  }

  MappingNode mapping(Node node, String field) throws RulesFileException {
    if (node instanceof MappingNode mapping) {
      return mapping;
    }
    throw error(node, field, "must be a mapping of fields (key: value)");
  }

  boolean hasKey(MappingNode mapping, String key) {
    for (NodeTuple tuple : mapping.getValue()) {
      if (tuple.getKeyNode() instanceof ScalarNode scalar && scalar.getValue().equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** The fields of a mapping; duplicate and unknown keys are errors. */
  Map<String, Node> fields(MappingNode mapping, String prefix, List<String> allowed)
      throws RulesFileException {
    Map<String, Node> fields = new LinkedHashMap<>();
    for (NodeTuple tuple : mapping.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
        throw error(tuple.getKeyNode(), prefix + "(key)", "field names must be plain words");
      }
      String name = key.getValue();
      if (name.isBlank()) {
        // `? ` or `"": 1` is a field without a name: say so, not "unknown field ''" at "rules[0]."
        throw error(key, prefix + "(key)", "a field has no name; allowed: " + listed(allowed));
      }
      if (!allowed.contains(name)) {
        String hint = OTHER_LAYOUT.get(name.toLowerCase(java.util.Locale.ROOT));
        throw error(
            key,
            prefix + name,
            "unknown field '" + name + "'" + (hint == null ? "" : " (" + hint + ")") + "; allowed: "
                + listed(allowed));
      }
      if (fields.put(name, tuple.getValueNode()) != null) {
        throw error(key, prefix + name, "field '" + name + "' appears twice");
      }
    }
    return fields;
  }

  /** The fields an error lists as allowed ({@code url} is accepted but not offered). */
  private static String listed(List<String> allowed) {
    return String.join(", ", allowed.stream().filter(f -> !f.equals("url")).toList());
  }

  private Node required(Map<String, Node> fields, Node item, String path, String name)
      throws RulesFileException {
    Node node = fields.get(name);
    if (node == null) {
      throw error(item, path + "." + name, "missing field '" + name + "'");
    }
    return node;
  }

  private <T> T optional(
      Map<String, Node> fields, String path, String name, Function<String, T> parse, T absent)
      throws RulesFileException {
    Node node = fields.get(name);
    return node == null ? absent : convert(node, path + "." + name, parse);
  }

  /** A scalar's text through {@code parse}; its IllegalArgumentException becomes a located error. */
  <T> T convert(Node node, String field, Function<String, T> parse) throws RulesFileException {
    if (!(node instanceof ScalarNode scalar)) {
      throw error(node, field, "must be a single value, not a list or a mapping");
    }
    if (scalar.getTag().equals(Tag.NULL) || scalar.getValue().isBlank()) {
      throw error(node, field, "must not be empty");
    }
    try {
      return parse.apply(scalar.getValue());
    } catch (IllegalArgumentException e) {
      throw error(node, field, e.getMessage());
    }
  }

  RulesFileException error(Node node, String field, String problem) {
    return new RulesFileException(source, line(node), field, problem);
  }

  static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  static long positive(String text) {
    try {
      long value = Long.parseLong(text.trim());
      if (value >= 1) {
        return value;
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw new IllegalArgumentException("must be a whole number >= 1 but was '" + text + "'");
  }

  static boolean bool(String text) {
    return switch (text.trim()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("must be true or false but was '" + text + "'");
    };
  }

  private static Algorithm dianaAlgorithm(String text) {
    return switch (text.trim().toUpperCase(java.util.Locale.ROOT)) {
      case "W" -> Algorithm.FIXED_WINDOW;
      case "SW" -> Algorithm.SLIDING_WINDOW;
      case "LB" -> Algorithm.LEAKY_BUCKET;
      case "TB" -> Algorithm.TOKEN_BUCKET;
      default -> {
        try {
          yield Algorithm.fromId(text);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "unknown algorithm '" + text + "'; allowed: " + DIANA_ALGORITHMS);
        }
      }
    };
  }
}
