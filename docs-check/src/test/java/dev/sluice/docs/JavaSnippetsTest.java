package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ```java block of the user docs compiles against the reactor's artifacts, with the imports
 * it shows (a user pastes them), or is the text of a file CI compiles.
 *
 * <ul>
 *   <li>{@code <!-- include: path -->} right above a block: the block is that file (from its first
 *       import on), word for word; the file is built by its own project.
 *   <li>A block with a top-level type is a compilation unit and compiles as it is.
 *   <li>Any other block is a fragment: its imports, then its statements in a method. What it uses
 *       without declaring (a registry the application has, its own job) is declared in a {@code
 *       <!-- given: ... -->} comment right above it: Java members, and imports for their types only.
 * </ul>
 */
class JavaSnippetsTest {

  private static final Pattern INCLUDE = Pattern.compile("<!--\\s*include:\\s*(\\S+)\\s*-->");
  private static final Pattern GIVEN = Pattern.compile("(?s)<!--\\s*given:(.*?)-->");
  private static final Pattern TYPE =
      Pattern.compile("(?m)^(public |final |abstract )*(class|record|interface|enum) \\w+");

  @TempDir
  Path out;

  @TestFactory
  Stream<DynamicTest> everyJavaBlockCompiles() {
    List<UserDocs.Block> blocks = UserDocs.blocks("java");
    assertThat(blocks).hasSizeGreaterThan(10);
    return blocks.stream().map(b -> DynamicTest.dynamicTest(b.where(), () -> check(b)));
  }

  private void check(UserDocs.Block block) throws IOException {
    Matcher include = INCLUDE.matcher(block.before());
    if (include.find()) {
      Path file = UserDocs.root().resolve(include.group(1));
      String text = Files.readString(file);
      assertThat(block.text().strip())
          .as("%s shows %s word for word", block.where(), include.group(1))
          .isEqualTo(text.substring(text.indexOf("import ")).strip());
      return;
    }
    List<String> imports = new ArrayList<>();
    StringBuilder body = new StringBuilder();
    for (String line : block.text().split("\n", -1)) {
      if (line.startsWith("import ")) {
        imports.add(line);
      } else {
        body.append(line).append('\n');
      }
    }
    String given = "";
    Matcher g = GIVEN.matcher(block.before());
    if (g.find()) {
      StringBuilder members = new StringBuilder();
      for (String line : g.group(1).split("\n")) {
        if (line.strip().startsWith("import ")) {
          imports.add(line.strip());
        } else {
          members.append(line).append('\n');
        }
      }
      given = members.toString();
    }
    String unit;
    if (TYPE.matcher(body).find() && given.isEmpty()) {
      unit = String.join("\n", imports) + "\n" + body;
    } else {
      unit = String.join("\n", imports)
          + "\n@SuppressWarnings(\"all\") class Snippet {\n"
          + given
          + "\nvoid snippet() throws Exception {\n"
          + body
          + "\n}\n}\n";
    }
    assertThat(compile(unit)).as("%s compiles:\n%s", block.where(), unit).isEmpty();
  }

  private String compile(String unit) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String name = publicTypeName(unit);
    JavaFileObject source =
        new SimpleJavaFileObject(
            URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return unit;
          }
        };
    StringWriter errors = new StringWriter();
    Path dir = Files.createTempDirectory(out, "snippet");
    boolean ok = javac
        .getTask(
            errors,
            null,
            null,
            List.of(
                "-classpath", classPath(), "-d", dir.toString(), "-proc:none", "--release", "17"),
            null,
            List.of(source))
        .call();
    return ok ? "" : errors.toString();
  }

  private static String publicTypeName(String unit) {
    Matcher m = Pattern.compile(
            "(?m)^public (final |abstract )*(class|record|interface|enum) (\\w+)")
        .matcher(unit);
    return m.find() ? m.group(3) : "Snippet";
  }

  static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }
}
