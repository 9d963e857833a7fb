package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import dev.sluice.rules.RulesFileException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * envoy/ratelimit's configuration, read unchanged: one file per {@code domain}, or a folder of
 * them ({@code *.yaml}, {@code *.yml}), each a tree of {@code descriptors}. Checked as
 * envoy/ratelimit checks it (a domain, a key on every descriptor, a known unit, no unit beside
 * {@code unlimited: true}, no composite key twice on one level, no domain in two files, a {@code
 * replaces} entry that names another limit), and strictly: a field this level does not have is an
 * error. Every error names the file, the line and the field.
 */
public final class DescriptorConfig {

  static final List<String> TOP_FIELDS = List.of("domain", "descriptors");
  static final List<String> DESCRIPTOR_FIELDS = List.of(
      "key",
      "value",
      "rate_limit",
      "descriptors",
      "shadow_mode",
      "quota_mode",
      "detailed_metric",
      "value_to_metric",
      "share_threshold",
      "metadata");
  static final List<String> RATE_LIMIT_FIELDS =
      List.of("unit", "requests_per_unit", "unlimited", "name", "replaces", "algorithm");

  private final Map<String, DescriptorNode> domains;

  private DescriptorConfig(Map<String, DescriptorNode> domains) {
    this.domains = Collections.unmodifiableMap(domains);
  }

  /** The root of a domain's tree, or null for a domain no file configures. */
  DescriptorNode domain(String name) {
    return domains.get(name);
  }

  Map<String, DescriptorNode> domains() {
    return domains;
  }

  /** The domains the files configure, in file order. */
  public java.util.Set<String> domainNames() {
    return domains.keySet();
  }

  /**
   * Reads a file, or every {@code .yaml} and {@code .yml} file of a folder (in name order).
   *
   * @throws RulesFileException naming the file, the line and the field at fault
   */
  public static DescriptorConfig load(Path path) throws RulesFileException {
    return parse(texts(path));
  }

  /**
   * The texts {@link #load} reads: the file, or each {@code .yaml} and {@code .yml} file of the
   * folder in name order, by file name as errors name it.
   *
   * @throws RulesFileException naming the file or folder that cannot be read
   */
  static Map<String, String> texts(Path path) throws RulesFileException {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(path)) {
      try (Stream<Path> listed = Files.list(path)) {
        listed
            .filter(Files::isRegularFile)
            .filter(f -> {
              String name = f.getFileName().toString().toLowerCase(Locale.ROOT);
              return name.endsWith(".yaml") || name.endsWith(".yml");
            })
            .sorted()
            .forEach(files::add);
      } catch (IOException e) {
        throw new RulesFileException(path.toString(), 0, "", "cannot list: " + e.getMessage());
      }
      if (files.isEmpty()) {
        throw new RulesFileException(path.toString(), 0, "", "no .yaml or .yml file in the folder");
      }
    } else {
      files.add(path);
    }
    Map<String, String> texts = new LinkedHashMap<>();
    for (Path file : files) {
      try {
        texts.put(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new RulesFileException(
            file.toString(),
            0,
            "",
            e instanceof java.nio.file.NoSuchFileException
                ? "does not exist"
                : "cannot be read: " + e.getMessage());
      }
    }
    return texts;
  }

  /**
   * Parses the texts of {@link #texts}, in their order.
   *
   * @throws RulesFileException naming the file, the line and the field at fault
   */
  static DescriptorConfig parse(Map<String, String> texts) throws RulesFileException {
    Map<String, DescriptorNode> domains = new LinkedHashMap<>();
    Map<String, String> domainFiles = new LinkedHashMap<>();
    for (Map.Entry<String, String> file : texts.entrySet()) {
      new FileReader(file.getKey()).read(file.getValue(), domains, domainFiles);
    }
    return new DescriptorConfig(domains);
  }

  /** Reads one file's text (tests; {@code source} names it in errors). */
  public static DescriptorConfig parse(String source, String text) throws RulesFileException {
    Map<String, DescriptorNode> domains = new LinkedHashMap<>();
    new FileReader(source).read(text, domains, new LinkedHashMap<>());
    return new DescriptorConfig(domains);
  }

  /** One file's reading, naming it in every error. */
  private static final class FileReader {
    private final String source;

    FileReader(String source) {
      this.source = source;
    }

    void read(String text, Map<String, DescriptorNode> domains, Map<String, String> domainFiles)
        throws RulesFileException {
      Node top;
      try (Reader reader = new java.io.StringReader(text)) {
        top = new Yaml(new SafeConstructor(new LoaderOptions())).compose(reader);
      } catch (MarkedYAMLException e) {
        int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
        throw new RulesFileException(source, line, "", "not valid YAML: " + e.getProblem());
      } catch (YAMLException | IOException e) {
        throw new RulesFileException(source, 0, "", "not valid YAML: " + e.getMessage());
      }
      if (top == null) {
        throw new RulesFileException(source, 0, "domain", "the file is empty; it needs a 'domain'");
      }
      Map<String, Node> fields = fields(mapping(top, "(top)"), "", TOP_FIELDS);
      Node domainNode = fields.get("domain");
      String domain = domainNode == null ? "" : scalar(domainNode, "domain");
      if (domain.isEmpty()) {
        throw error(top, "domain", "config file cannot have empty domain");
      }
      if (domains.containsKey(domain)) {
        throw error(
            domainNode,
            "domain",
            "duplicate domain '" + domain + "' (also in " + domainFiles.get(domain) + ")");
      }
      DescriptorNode root = DescriptorNode.root();
      Node list = fields.get("descriptors");
      if (list != null) {
        descriptors(list, "descriptors", root);
      }
      domains.put(domain, root);
      domainFiles.put(domain, source);
    }

    private void descriptors(Node list, String path, DescriptorNode parent)
        throws RulesFileException {
      if (isNull(list)) {
        return;
      }
      if (!(list instanceof SequenceNode sequence)) {
        throw error(list, path, "must be a list of descriptors");
      }
      int i = 0;
      for (Node item : sequence.getValue()) {
        descriptor(item, path + "[" + i++ + "]", parent);
      }
    }

    private void descriptor(Node item, String path, DescriptorNode parent)
        throws RulesFileException {
      Map<String, Node> fields = fields(mapping(item, path), path + ".", DESCRIPTOR_FIELDS);
      String key = fields.containsKey("key") ? scalar(fields.get("key"), path + ".key") : "";
      if (key.isEmpty()) {
        throw error(item, path + ".key", "descriptor has empty key");
      }
      String value =
          fields.containsKey("value") ? scalar(fields.get("value"), path + ".value") : "";
      String composite = value.isEmpty() ? key : key + "_" + value;
      boolean shadow = bool(fields, "shadow_mode", path);
      if (bool(fields, "quota_mode", path)) {
        throw error(
            fields.get("quota_mode"),
            path + ".quota_mode",
            "quota_mode is not supported by this service; remove it or set it to false");
      }
      boolean share = bool(fields, "share_threshold", path);
      if (share && composite.indexOf('*') < 0) {
        throw error(
            fields.get("share_threshold"),
            path + ".share_threshold",
            "share_threshold can only be used with wildcard values (containing '*'), but found key '"
                + composite + "'");
      }
      bool(fields, "detailed_metric", path);
      bool(fields, "value_to_metric", path);
      DescriptorLimit limit = null;
      if (fields.containsKey("rate_limit") && !isNull(fields.get("rate_limit"))) {
        limit = limit(fields.get("rate_limit"), path + ".rate_limit", shadow);
      }
      DescriptorNode node = new DescriptorNode(
          limit, share, composite.indexOf('*') >= 0 && !value.isEmpty() ? value : null);
      if (!parent.add(composite, node)) {
        throw error(item, path + ".key", "duplicate descriptor composite key '" + composite + "'");
      }
      if (fields.containsKey("descriptors")) {
        descriptors(fields.get("descriptors"), path + ".descriptors", node);
      }
    }

    private DescriptorLimit limit(Node node, String path, boolean shadow)
        throws RulesFileException {
      Map<String, Node> fields = fields(mapping(node, path), path + ".", RATE_LIMIT_FIELDS);
      boolean unlimited = bool(fields, "unlimited", path);
      Unit unit = null;
      if (fields.containsKey("unit")) {
        String text = scalar(fields.get("unit"), path + ".unit");
        unit = Unit.parse(text);
        if (unit == null && !unlimited) {
          throw error(
              fields.get("unit"),
              path + ".unit",
              "invalid rate limit unit '" + text + "'; allowed: " + Unit.allowed());
        }
      }
      if (unlimited && unit != null) {
        throw error(
            fields.get("unit"),
            path + ".unit",
            "should not specify rate limit unit when unlimited");
      }
      if (!unlimited && unit == null) {
        throw error(node, path + ".unit", "missing field 'unit'; allowed: " + Unit.allowed());
      }
      long requests = 0;
      if (fields.containsKey("requests_per_unit")) {
        Node n = fields.get("requests_per_unit");
        String text = scalar(n, path + ".requests_per_unit");
        try {
          requests = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
          requests = -1;
        }
        if (requests < 0 || requests > 0xFFFF_FFFFL) {
          throw error(
              n,
              path + ".requests_per_unit",
              "'" + text + "' is not a whole number from 0 to 4294967295");
        }
      }
      String name = fields.containsKey("name") ? scalar(fields.get("name"), path + ".name") : "";
      List<String> replaces = new ArrayList<>();
      Node list = fields.get("replaces");
      if (list != null && !isNull(list)) {
        if (!(list instanceof SequenceNode sequence)) {
          throw error(list, path + ".replaces", "must be a list of {name: ...}");
        }
        int i = 0;
        for (Node item : sequence.getValue()) {
          String at = path + ".replaces[" + i++ + "]";
          Map<String, Node> entry = fields(mapping(item, at), at + ".", List.of("name"));
          String replaced =
              entry.containsKey("name") ? scalar(entry.get("name"), at + ".name") : "";
          if (replaced.isEmpty()) {
            throw error(item, at + ".name", "should not have an empty replaces entry");
          }
          if (replaced.equals(name)) {
            throw error(item, at + ".name", "replaces should not contain name of same descriptor");
          }
          replaces.add(replaced);
        }
      }
      Algorithm algorithm = Algorithm.FIXED_WINDOW;
      if (fields.containsKey(
          "algorithm")) { // Sluice's extension: envoy/ratelimit knows no such field
        String text = scalar(fields.get("algorithm"), path + ".algorithm");
        try {
          algorithm = Algorithm.fromId(text.trim());
        } catch (IllegalArgumentException e) {
          throw error(
              fields.get("algorithm"),
              path + ".algorithm",
              "unknown algorithm '" + text + "'; allowed: " + algorithms());
        }
        if (algorithm == Algorithm.LEAKY_BUCKET_SHAPER) {
          throw error(
              fields.get("algorithm"),
              path + ".algorithm",
              "'" + text + "' delays requests, which Envoy cannot do; allowed: " + algorithms());
        }
      }
      return new DescriptorLimit(requests, unit, unlimited, shadow, name, replaces, algorithm);
    }

    private static String algorithms() {
      return java.util.Arrays.stream(Algorithm.values())
          .filter(a -> a != Algorithm.LEAKY_BUCKET_SHAPER)
          .map(Algorithm::id)
          .collect(java.util.stream.Collectors.joining(", "));
    }

    private boolean bool(Map<String, Node> fields, String field, String path)
        throws RulesFileException {
      Node node = fields.get(field);
      if (node == null || isNull(node)) {
        return false;
      }
      String text = scalar(node, path + "." + field).toLowerCase(Locale.ROOT);
      return switch (text) {
        case "true", "yes", "on" -> true;
        case "false", "no", "off" -> false;
        default -> throw error(node, path + "." + field, "'" + text + "' is not true or false");
      };
    }

    private MappingNode mapping(Node node, String path) throws RulesFileException {
      if (node instanceof MappingNode mapping) {
        return mapping;
      }
      throw error(node, path, "must be a mapping of fields");
    }

    private Map<String, Node> fields(MappingNode mapping, String prefix, List<String> allowed)
        throws RulesFileException {
      Map<String, Node> out = new LinkedHashMap<>();
      for (NodeTuple tuple : mapping.getValue()) {
        String name = scalar(tuple.getKeyNode(), prefix + "(field name)");
        if (!allowed.contains(name)) {
          throw error(
              tuple.getKeyNode(),
              prefix + name,
              "unknown field '" + name + "'; allowed here: " + String.join(", ", allowed));
        }
        if (out.put(name, tuple.getValueNode()) != null) {
          throw error(tuple.getKeyNode(), prefix + name, "field '" + name + "' given twice");
        }
      }
      return out;
    }

    private String scalar(Node node, String path) throws RulesFileException {
      if (node instanceof ScalarNode scalar) {
        return isNull(node) ? "" : scalar.getValue();
      }
      throw error(node, path, "must be a single value, not a list or a mapping");
    }

    private static boolean isNull(Node node) {
      return node instanceof ScalarNode scalar
          && "tag:yaml.org,2002:null".equals(scalar.getTag().getValue());
    }

    private RulesFileException error(Node node, String field, String problem) {
      return new RulesFileException(source, node.getStartMark().getLine() + 1, field, problem);
    }
  }
}
