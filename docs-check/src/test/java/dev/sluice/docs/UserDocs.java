package dev.sluice.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The pages a user reads, and the fenced blocks in them. */
final class UserDocs {

  private UserDocs() {}

  /** The repository's root (the parent of this module). */
  static Path root() {
    return Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
  }

  /**
   * Every user page: the root README, each module's and example's README, docs/, ops/ and
   * benchmarks/README.md. The results files under benchmarks/results are dated records, not pages.
   */
  static List<Path> pages() {
    Path root = root();
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root, 3)) {
      files
          .filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !root.relativize(p).startsWith("benchmarks/results"))
          .filter(p -> root.relativize(p).getNameCount() == 1
              || !root.relativize(p).getName(1).toString().equals("target"))
          .filter(p -> !root.relativize(p).toString().contains("/target/"))
          .filter(p -> !root.relativize(p).toString().contains("/src/"))
          .sorted()
          .forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  static String relative(Path page) {
    return root().relativize(page).toString();
  }

  /** A fenced block: its language, its text, the line of its opening fence, the text before it. */
  record Block(Path page, String language, String text, int line, String before) {
    String where() {
      return relative(page) + ":" + line;
    }
  }

  static List<Block> blocks(Path page, String language) {
    List<String> lines;
    try {
      lines = Files.readAllLines(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith("```")) {
        continue;
      }
      String lang = line.substring(3).strip();
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).startsWith("```")) {
        end++;
      }
      if (lang.equals(language)) {
        StringBuilder before = new StringBuilder();
        int j = i - 1;
        if (j >= 0 && lines.get(j).strip().endsWith("-->")) {
          while (j >= 0 && !lines.get(j).contains("<!--")) {
            j--;
          }
          for (int k = Math.max(j, 0); k < i; k++) {
            before.append(lines.get(k)).append('\n');
          }
        }
        blocks.add(new Block(
            page,
            lang,
            String.join("\n", lines.subList(i + 1, end)) + "\n",
            i + 1,
            before.toString()));
      }
      i = end;
    }
    return blocks;
  }

  static List<Block> blocks(String language) {
    List<Block> all = new ArrayList<>();
    for (Path page : pages()) {
      all.addAll(blocks(page, language));
    }
    return all;
  }
}
