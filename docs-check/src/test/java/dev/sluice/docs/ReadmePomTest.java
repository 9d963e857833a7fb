package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The root README's POM fragments are the ones the examples build with on Maven's defaults (the
 * invoker builds them): its dependencies and its compiler plugin are in the example projects as
 * written, so a fragment the README shows has been through a fresh `mvn package`.
 */
class ReadmePomTest {

  private static final Pattern ELEMENT = Pattern.compile(
      "<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>(\\s*<version>([^<]+)</version>)?");

  @Test
  void everyCoordinateOfTheReadmesPomIsInAnExampleThatCiBuilds() throws Exception {
    Path root = UserDocs.root();
    List<UserDocs.Block> xml = UserDocs.blocks(root.resolve("README.md"), "xml");
    assertThat(xml).hasSizeGreaterThanOrEqualTo(2);
    String poms = Files.readString(root.resolve("examples/first-app/pom.xml"))
        + Files.readString(root.resolve("examples/redis-global/pom.xml"));
    String compact = poms.replaceAll("\\s+", " ");
    int seen = 0;
    for (UserDocs.Block block : xml) {
      Matcher m = ELEMENT.matcher(block.text());
      while (m.find()) {
        seen++;
        String coordinate = m.group().replaceAll("\\s+", " ");
        assertThat(compact).as("%s: %s", block.where(), coordinate).contains(coordinate);
      }
    }
    assertThat(seen).isGreaterThanOrEqualTo(4); // the BOM, the plugin, the compiler, limiter-redis
    assertThat(String.join("\n", xml.stream().map(UserDocs.Block::text).toList()))
        .contains("<maven.compiler.release>17</maven.compiler.release>")
        .contains("<artifactId>maven-compiler-plugin</artifactId>");
  }
}
