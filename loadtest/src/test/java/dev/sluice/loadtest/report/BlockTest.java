package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The blocks a grid lays out, and the console's echo of a table. */
class BlockTest {

  @Test
  void aGridPutsItsCellsSideBySideItsSectionsALevelDown() {
    String html = HtmlRenderer.render(new Report(
        "t",
        List.of(new Block.Grid(
            3, List.of(Block.Section.of("a \"b\"", new Block.Text("x < y")), new Block.Text("z")))),
        java.util.Map.of()));

    assertThat(html)
        .contains("<div class=\"grid\" style=\"grid-template-columns:repeat(3,minmax(0,1fr))\">")
        .contains("<h3>a &quot;b&quot;</h3>\n<p>x &lt; y</p>\n<p>z</p>\n</div>");
  }

  @Test
  void aTableEchoesEachRowAsHeaderValuePairs() {
    Block.Table t = Block.Table.of("", "fifo", "fair").row("Jain", 0.62, 0.97).build();

    assertThat(t.lines()).containsExactly("Jain, fifo 0.62, fair 0.97");
  }

  @Test
  void aSectionEchoesTheTablesInsideIt() {
    PrintStream console = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      Block.Section.of(
              "s",
              new Block.Text("not echoed"),
              Block.Table.of("n", "p99").row(1, 2).row(3, 4).build())
          .echo();
    } finally {
      System.setOut(console);
    }

    assertThat(out.toString(StandardCharsets.UTF_8).lines())
        .containsExactly("n 1, p99 2", "n 3, p99 4");
  }
}
