package dev.sluice.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BOM has no parent (so it pins nothing but Sluice in a user's project), so nothing keeps its
 * versions in step with the build but this test: same version as the parent, and every library
 * module (limiter-*, *-plugin) listed.
 */
class BomTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void theBomListsEveryLibraryModuleAtTheBuildsVersion() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"));
    String bom = Files.readString(ROOT.resolve("sluice-bom/pom.xml"));
    String version =
        first(parent, "<artifactId>sluice-parent</artifactId>\\s*<version>([^<]+)</version>");

    assertThat(first(bom, "<artifactId>sluice-bom</artifactId>\\s*<version>([^<]+)</version>"))
        .isEqualTo(version);
    List<String> libraries = new ArrayList<>();
    Matcher modules = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
    while (modules.find()) {
      String module = modules.group(1);
      if (module.startsWith("limiter-") || module.endsWith("-plugin")) {
        libraries.add(module);
      }
    }
    assertThat(libraries).contains("limiter-core", "javalin-plugin");
    for (String library : libraries) {
      assertThat(bom)
          .as(library)
          .containsPattern("<artifactId>" + Pattern.quote(library) + "</artifactId>\\s*<version>"
              + Pattern.quote(version) + "</version>");
    }
  }

  private static String first(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as(regex).isTrue();
    return m.group(1);
  }
}
