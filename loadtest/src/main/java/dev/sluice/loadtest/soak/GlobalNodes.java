package dev.sluice.loadtest.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The set-up the soak and the transitions' two-node parts share: demo nodes on one Redis, the
 * history lookups under a global per-account rule, the transcode limiter global with a fixed limit.
 * Each caller adds the transcode limiter's own sizes.
 */
public final class GlobalNodes {

  /** The global per-account rule's permits per second, and its burst. */
  public static final int RULE_PER_SECOND = 5;

  /** The global per-account rule of the history lookups: {@value #RULE_PER_SECOND}/s, burst as many. */
  static final String RULES = """
      rules:
        - id: history-per-account
          resource: /api/history/*
          method: GET
          actor: account
          limit: %d
          unit: second
          burst: %d
          algorithm: token-bucket
          scope: global\
      """.formatted(RULE_PER_SECOND, RULE_PER_SECOND);

  private GlobalNodes() {}

  /** Writes the rules file the nodes read, and returns it. */
  public static Path writeRules(Path file) throws IOException {
    return Files.writeString(file, RULES);
  }

  /**
   * The properties of every node.
   *
   * @param transcode the transcode limiter's own keys after {@code sluice.limiters.transcode.},
   *     e.g. {@code max-queue=6}
   * @param given the command line's {@code --server-property}, last so that they win
   */
  public static List<String> properties(
      String redisUri, int nodes, Path rules, List<String> transcode, List<String> given) {
    List<String> properties = new ArrayList<>(List.of(
        "sluice.enabled=true",
        "sluice.redis.uri=" + redisUri,
        "sluice.redis.expected-nodes=" + nodes,
        "sluice.rules.file=" + rules.toAbsolutePath(),
        "sluice.limiters.transcode.limit=fixed",
        "sluice.limiters.transcode.scope=global"));
    transcode.forEach(key -> properties.add("sluice.limiters.transcode." + key));
    properties.addAll(given);
    return properties;
  }
}
