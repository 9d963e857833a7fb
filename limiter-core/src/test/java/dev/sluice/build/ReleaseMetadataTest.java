package dev.sluice.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a repository such as Maven Central asks of every published POM: a description, a project
 * URL, a licence, developers and SCM addresses. The modules inherit them from the parent; the BOM
 * has no parent and repeats them, so this test keeps the two equal and checks the LICENSE file is
 * the one the POM names.
 */
class ReleaseMetadataTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void theBomCarriesTheParentsLicenceAddressesAndDevelopers() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"));
    String bom = Files.readString(ROOT.resolve("sluice-bom/pom.xml"));
    for (String element : new String[] {"url", "licenses", "developers", "issueManagement"}) {
      assertThat(element(bom, element)).as(element).isEqualTo(element(parent, element));
    }
    assertThat(strip(element(bom, "scm"))).isEqualTo(strip(element(parent, "scm")));
    assertThat(element(parent, "licenses")).contains("<name>Apache-2.0</name>");
  }

  @Test
  void everyModuleDescribesItself() throws IOException {
    Matcher modules = Pattern.compile("<module>([^<]+)</module>")
        .matcher(Files.readString(ROOT.resolve("pom.xml")));
    while (modules.find()) {
      String pom = Files.readString(ROOT.resolve(modules.group(1)).resolve("pom.xml"));
      assertThat(element(pom, "name")).as(modules.group(1)).isNotBlank();
      assertThat(element(pom, "description")).as(modules.group(1)).isNotBlank();
    }
  }

  @Test
  void theLicenceFileIsApache2() throws IOException {
    String licence = Files.readString(ROOT.resolve("LICENSE"));
    assertThat(licence).contains("Apache License", "Version 2.0, January 2004");
  }

  /** The first top-level {@code <name ...>...</name>} after the artifact's own coordinates. */
  private static String element(String pom, String name) {
    String afterParent = pom.substring(pom.indexOf("</modelVersion>"));
    Matcher m = Pattern.compile("<" + name + "(\\s[^>]*)?>(.*?)</" + name + ">", Pattern.DOTALL)
        .matcher(afterParent.replaceFirst("(?s)<parent>.*?</parent>", ""));
    assertThat(m.find()).as(name).isTrue();
    return m.group(2).strip();
  }

  /** Whitespace aside, for elements whose attributes differ (the parent's inheritance flags). */
  private static String strip(String xml) {
    return xml.replaceAll("\\s+", " ");
  }
}
