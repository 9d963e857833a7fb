package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * User docs say what is true now: no sentence of a development log ("the static limit of before",
 * "earlier runs") and no figure given against the one it replaced ("(77.6 before)"). The result
 * files under benchmarks/results are dated records of one run each and are not checked.
 */
class UserDocsWordingTest {

  /** Phrases of a development log, lower case. */
  static final List<String> PHRASES = List.of(
      "of before",
      "as before",
      "used to wait",
      "used to be",
      "used to answer",
      "used to report",
      "before this change",
      "after this change",
      "earlier runs",
      "earlier partial runs",
      "earlier profile",
      "was rejected:",
      "learnt to count",
      "after the performance pass",
      "the module boundaries of the design",
      "now learns",
      "the old `auto`");

  /** A figure set against an older one: "(77.6 before)", "366 before)", "1.78x ... before, 1.80x after". */
  static final List<Pattern> PATTERNS = List.of(
      Pattern.compile("\\d[\\d.,]*\\s*(x|%|ns|ms|s|µs)?\\s+before[),;]"),
      Pattern.compile("\\bbefore, \\d[\\d.,]*\\s*(x|%|ns|ms|s|µs)? after\\b"),
      Pattern.compile("\\(before: [^)]*\\)"),
      Pattern.compile("\\bwas \\d[\\d.,]*\\s*(x|%|ns|ms)?\\)"));

  @Test
  void userDocsReadAsDocsNotAsALog() throws IOException {
    List<Path> pages = UserDocs.pages();
    assertThat(pages).extracting(UserDocs::relative).contains("README.md", "docs/ARCHITECTURE.md");
    List<String> found = new ArrayList<>();
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        String lower = line.toLowerCase(Locale.ROOT);
        for (String phrase : PHRASES) {
          if (lower.contains(phrase)) {
            found.add(UserDocs.relative(page) + ":" + (i + 1) + ": '" + phrase + "'");
          }
        }
        for (Pattern pattern : PATTERNS) {
          Matcher m = pattern.matcher(line);
          if (m.find()) {
            found.add(UserDocs.relative(page) + ":" + (i + 1) + ": '" + m.group() + "'");
          }
        }
      }
    }
    assertThat(found).as("development-log wording in user docs").isEmpty();
  }

  @Test
  void thePatternsCatchWhatTheyAreFor() {
    assertThat(PATTERNS.get(0).matcher("Sluice 34.9 ns (77.6 before), Bucket4j").find())
        .isTrue();
    assertThat(PATTERNS.get(0).matcher("the load average before and after").find())
        .isFalse();
    assertThat(PATTERNS
            .get(0)
            .matcher("still rejected 1 ns before its retryAfterNanos")
            .find())
        .isFalse();
    assertThat(
            PATTERNS.get(1).matcher("1.78x the semaphore before, 1.80x after").find())
        .isTrue();
    assertThat(PATTERNS.get(2).matcher("back in 1.5 s (before: never)").find()).isTrue();
  }
}
