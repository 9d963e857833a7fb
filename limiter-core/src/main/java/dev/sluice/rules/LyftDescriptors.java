package dev.sluice.rules;

import dev.sluice.rate.Algorithm;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads envoy/ratelimit's ("Lyft") layout: a {@code domain} and a tree of {@code descriptors}, each
 * with a {@code key}, an optional {@code value}, an optional {@code rate_limit} and nested {@code
 * descriptors}. Every descriptor with a {@code rate_limit} becomes one rule built from the keys on
 * its way down from the top:
 *
 * <ul>
 *   <li>{@code path} with a {@code value}: the resource pattern ({@code /api/history/*}); none on
 *       the way: {@code /**}.
 *   <li>{@code method} with a {@code value}: only that method.
 *   <li>{@code remote_address}, {@code account}, {@code device}, {@code header:NAME}: who is
 *       counted, one counter per distinct value (so without {@code value}; a fixed value would
 *       mean "only this client", which Sluice rules do not express). At most one per rule.
 *   <li>{@code generic_key} (value optional): everyone together, as its single shared counter in
 *       envoy.
 * </ul>
 *
 * {@code rate_limit: {unit, requests_per_unit}} gives the limit; counted in fixed windows of one
 * unit, as envoy/ratelimit counts; {@code name} sets the rule's id; {@code unlimited: true} makes no
 * rule. {@code shadow_mode: true} makes a shadow rule (counted, never rejecting).
 */
final class LyftDescriptors {

  static final List<String> TOP_FIELDS = List.of("domain", "descriptors");
  static final List<String> DESCRIPTOR_FIELDS =
      List.of("key", "value", "rate_limit", "descriptors", "shadow_mode", "detailed_metric");
  static final List<String> RATE_LIMIT_FIELDS =
      List.of("unit", "requests_per_unit", "name", "unlimited");
  static final String KEYS =
      "path, method, remote_address, account, device, header:NAME, generic_key";

  private final RuleNodes nodes;

  LyftDescriptors(RuleNodes nodes) {
    this.nodes = nodes;
  }

  /** Whether a document's top-level keys are this layout's. */
  static boolean isLyft(RuleNodes nodes, MappingNode top) {
    return nodes.hasKey(top, "domain") || nodes.hasKey(top, "descriptors");
  }

  /** Where the rules of a file go, with the node each came from (for duplicate-id errors). */
  interface Sink {
    void add(Rule rule, Node at, String path) throws RulesFileException;
  }

  /** The rules of one document, given to {@code out} in the file's order. */
  void read(MappingNode top, Sink out) throws RulesFileException {
    Map<String, Node> fields = nodes.fields(top, "", TOP_FIELDS);
    Node domain = fields.get("domain");
    if (domain == null) {
      throw nodes.error(top, "domain", "missing field 'domain'");
    }
    nodes.convert(domain, "domain", d -> d);
    Node list = fields.get("descriptors");
    if (list == null) {
      throw nodes.error(top, "descriptors", "missing field 'descriptors'");
    }
    descriptors(list, "descriptors", new Chain(null, null, null, null), out);
  }

  /** What the keys above a descriptor said. */
  private record Chain(ResourcePattern resource, String method, Actor actor, String actorField) {}

  private void descriptors(Node list, String path, Chain chain, Sink out)
      throws RulesFileException {
    if (!(list instanceof SequenceNode sequence)) {
      throw nodes.error(list, path, "must be a list of descriptors");
    }
    int i = 0;
    for (Node item : sequence.getValue()) {
      descriptor(item, path + "[" + i++ + "]", chain, out);
    }
  }

  private void descriptor(Node item, String path, Chain above, Sink out) throws RulesFileException {
    Map<String, Node> fields =
        nodes.fields(nodes.mapping(item, path), path + ".", DESCRIPTOR_FIELDS);
    Node keyNode = fields.get("key");
    if (keyNode == null) {
      throw nodes.error(item, path + ".key", "missing field 'key'");
    }
    String key = nodes.convert(keyNode, path + ".key", k -> k.trim());
    Node valueNode = fields.get("value");
    String value = valueNode == null ? null : nodes.convert(valueNode, path + ".value", v -> v);
    Chain chain = with(above, key, value, keyNode, valueNode, path);

    Node rateLimit = fields.get("rate_limit");
    if (rateLimit != null) {
      Rule rule = rule(
          rateLimit, path + ".rate_limit", chain, fields.get("shadow_mode"), path + ".shadow_mode");
      if (rule != null) {
        out.add(rule, item, path);
      }
    }
    if (fields.containsKey("descriptors")) {
      descriptors(fields.get("descriptors"), path + ".descriptors", chain, out);
    }
  }

  private Chain with(Chain c, String key, String value, Node keyNode, Node valueNode, String path)
      throws RulesFileException {
    switch (key) {
      case "path" -> {
        if (value == null) {
          throw nodes.error(
              keyNode,
              path + ".value",
              "key 'path' needs a 'value': the resource pattern, e.g. /api/history/*");
        }
        return new Chain(
            nodes.convert(valueNode, path + ".value", ResourcePattern::parse),
            c.method(),
            c.actor(),
            c.actorField());
      }
      case "method" -> {
        if (value == null) {
          throw nodes.error(
              keyNode,
              path + ".value",
              "key 'method' needs a 'value', e.g. GET (Sluice does not count per method)");
        }
        return new Chain(
            c.resource(),
            nodes.convert(valueNode, path + ".value", Rule::normalizeMethod),
            c.actor(),
            c.actorField());
      }
      case "generic_key" -> {
        return actor(c, Actor.All.INSTANCE, keyNode, path);
      }
      default -> {}
    }
    Actor actor = switch (key) {
      case "remote_address" -> Actor.Ip.INSTANCE;
      case "account" -> Actor.Account.INSTANCE;
      case "device" -> Actor.Device.INSTANCE;
      default ->
        key.startsWith("header:") ? nodes.convert(keyNode, path + ".key", Actor::parse) : null;
    };
    if (actor == null) {
      throw nodes.error(keyNode, path + ".key", "unknown key '" + key + "'; allowed: " + KEYS);
    }
    if (value != null) {
      throw nodes.error(
          valueNode,
          path + ".value",
          "key '" + key + "' counts per distinct value;"
              + " a fixed value (only this client) is not supported: remove 'value'");
    }
    return actor(c, actor, keyNode, path);
  }

  private Chain actor(Chain c, Actor actor, Node keyNode, String path) throws RulesFileException {
    if (c.actor() != null) {
      throw nodes.error(
          keyNode,
          path + ".key",
          "a second actor under '" + c.actorField() + "'; a Sluice rule counts by one actor ("
              + c.actor().id() + ")");
    }
    return new Chain(c.resource(), c.method(), actor, path + ".key");
  }

  private Rule rule(Node node, String path, Chain chain, Node shadowNode, String shadowPath)
      throws RulesFileException {
    Map<String, Node> fields =
        nodes.fields(nodes.mapping(node, path), path + ".", RATE_LIMIT_FIELDS);
    if (fields.containsKey("unlimited")
        && nodes.convert(fields.get("unlimited"), path + ".unlimited", RuleNodes::bool)) {
      return null;
    }
    Node unit = fields.get("unit");
    if (unit == null) {
      throw nodes.error(node, path + ".unit", "missing field 'unit'");
    }
    Node requests = fields.get("requests_per_unit");
    if (requests == null) {
      throw nodes.error(node, path + ".requests_per_unit", "missing field 'requests_per_unit'");
    }
    Duration period = nodes.convert(unit, path + ".unit", RulePeriod::parse);
    long limit = nodes.convert(requests, path + ".requests_per_unit", RuleNodes::positive);
    Rule.Builder rule = Rule.builder()
        .resource(chain.resource() == null ? ResourcePattern.parse("/**") : chain.resource())
        .method(chain.method())
        .actor(chain.actor() == null ? Actor.All.INSTANCE : chain.actor())
        .limit(limit, period)
        .algorithm(Algorithm.FIXED_WINDOW);
    if (shadowNode != null) {
      rule.shadow(nodes.convert(shadowNode, shadowPath, RuleNodes::bool));
    }
    if (fields.containsKey("name")) {
      rule.id(nodes.convert(fields.get("name"), path + ".name", n -> n.trim()));
    }
    try {
      return rule.build();
    } catch (IllegalArgumentException e) {
      throw nodes.error(
          fields.containsKey("name") ? fields.get("name") : node, path + ".name", e.getMessage());
    }
  }
}
