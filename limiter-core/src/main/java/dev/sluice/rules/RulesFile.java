package dev.sluice.rules;

import dev.sluice.request.ResourcePattern;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads rules files. Three layouts, told apart by their top-level keys:
 *
 * <pre>{@code
 * rules:                         # Sluice's layout
 *   - id: history-per-account
 *     resource: /api/history/*
 *     method: GET
 *     actor: account
 *     limit: 10
 *     unit: second
 *     algorithm: token-bucket
 *     scope: local
 *
 * Url: /sample                   # the Diana layout: every rule guards Url and all paths below it
 * rules:
 *   - actor: device
 *     unit: second
 *     rpu: 10
 *     algo: TB                   # W | SW | LB | TB
 *     scope: global
 *
 * domain: sluice                 # the Lyft layout (envoy/ratelimit's descriptors), see LyftDescriptors
 * descriptors:
 *   - key: path
 *     value: /api/history/*
 *     descriptors:
 *       - key: account           # per distinct account
 *         rate_limit:
 *           unit: minute
 *           requests_per_unit: 5
 * }</pre>
 *
 * <p>"Diana" is the name of a gateway rate-limiting filter design (cited by Sluice's requirements)
 * whose rules file has this layout: one {@code Url} per YAML document (guarding that path and everything below it) and short
 * field names ({@code rpu} requests per unit, {@code algo} one of {@code W}, {@code SW}, {@code LB},
 * {@code TB}); limiter-core's README says more.
 *
 * A file may hold several YAML documents separated by {@code ---} (one per Diana {@code Url}); their
 * rules form one set. Every error names the file, the line and the field, and lists the allowed
 * values where there is a list; unknown fields and duplicate ids are errors.
 */
public final class RulesFile {

  /** Larger than any sensible rules file; bounds the memory a bad remote answer can take. */
  static final int MAX_CHARS = 1_000_000;

  private RulesFile() {}

  /**
   * Reads and parses a rules file (UTF-8).
   *
   * @throws RulesFileException when it cannot be read or is not a valid rules file
   */
  public static RuleSet load(Path file) throws RulesFileException {
    return parse(file.toString(), read(file));
  }

  /** The text of a rules file, bounded in size. */
  static String read(Path file) throws RulesFileException {
    try {
      if (Files.size(file) > MAX_CHARS * 4L) {
        throw new RulesFileException(
            file.toString(), 0, "(file)", "larger than " + MAX_CHARS + " characters");
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new RulesFileException(file.toString(), 0, "(file)", "cannot be read: " + e);
    }
  }

  /**
   * Parses rules from YAML text.
   *
   * @param sourceName the file name or URL, used in error messages
   * @throws RulesFileException when the text is not a valid rules file
   */
  public static RuleSet parse(String sourceName, String yaml) throws RulesFileException {
    if (yaml.length() > MAX_CHARS) {
      throw new RulesFileException(
          sourceName, 0, "(file)", "larger than " + MAX_CHARS + " characters");
    }
    List<Node> documents = compose(sourceName, yaml);
    if (documents.isEmpty()) {
      throw new RulesFileException(
          sourceName,
          1,
          "rules",
          "the file is empty; expected a 'rules' list (write 'rules: []' for no rules)");
    }
    RuleNodes nodes = new RuleNodes(sourceName);
    List<Rule> rules = new ArrayList<>();
    List<RulesFileException> problems = new ArrayList<>();
    Map<String, Integer> firstLine = new HashMap<>();
    LyftDescriptors.Sink sink = (rule, item, path) -> {
      Integer earlier = firstLine.putIfAbsent(rule.id(), RuleNodes.line(item));
      if (earlier != null) {
        throw nodes.error(
            item,
            path + ".id",
            "duplicate rule id '" + rule.id()
                + "' (first used at line " + earlier + ")"
                + (nodes.hadExplicitId(item)
                    ? ""
                    : "; the id is derived from actor, method,"
                        + " resource and unit: give one of the rules its own 'id' ('rate_limit.name' in the"
                        + " Lyft layout)"));
      }
      rules.add(rule);
    };
    for (Node document : documents) {
      MappingNode top = nodes.mapping(document, "(document)");
      if (LyftDescriptors.isLyft(nodes, top)) {
        new LyftDescriptors(nodes).read(top, sink);
        continue;
      }
      Map<String, Node> fields = nodes.fields(top, "", layoutKeys(nodes, top));
      boolean diana = fields.containsKey("Url") || fields.containsKey("url");
      Node list = fields.get("rules");
      if (list == null) {
        throw nodes.error(
            top, "rules", "missing field 'rules' (or 'descriptors' for the Lyft" + " layout)");
      }
      if (!(list instanceof SequenceNode sequence)) {
        throw nodes.error(list, "rules", "must be a list of rules");
      }
      ResourcePattern dianaResource = diana
          ? nodes.dianaUrl(fields.containsKey("Url") ? fields.get("Url") : fields.get("url"))
          : null;
      int index = 0;
      for (Node item : sequence.getValue()) {
        String path = "rules[" + index++ + "]";
        try {
          sink.add(
              diana ? nodes.dianaRule(item, path, dianaResource) : nodes.rule(item, path),
              item,
              path);
        } catch (RulesFileException e) {
          problems.add(e); // every rule is read: a file with three mistakes is one run, not three
        }
      }
    }
    if (!problems.isEmpty()) {
      throw RulesFileException.all(problems);
    }
    return RuleSet.of(rules);
  }

  private static List<String> layoutKeys(RuleNodes nodes, MappingNode top) {
    boolean diana = nodes.hasKey(top, "Url") || nodes.hasKey(top, "url");
    return diana ? List.of("Url", "url", "rules") : List.of("rules");
  }

  private static List<Node> compose(String sourceName, String yaml) throws RulesFileException {
    LoaderOptions options = new LoaderOptions();
    options.setMaxAliasesForCollections(20); // no billion-laughs from a remote file
    options.setNestingDepthLimit(20);
    options.setCodePointLimit(MAX_CHARS);
    List<Node> documents = new ArrayList<>();
    try {
      for (Node node : new Yaml(options).composeAll(new StringReader(yaml))) {
        documents.add(node);
      }
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      throw new RulesFileException(
          sourceName,
          mark == null ? 0 : mark.getLine() + 1,
          "(yaml)",
          "not valid YAML: " + e.getProblem());
    } catch (YAMLException e) {
      throw new RulesFileException(sourceName, 0, "(yaml)", "not valid YAML: " + e.getMessage());
    }
    return documents;
  }
}
