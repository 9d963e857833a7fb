package dev.sluice.loadtest.report;

import static dev.sluice.loadtest.report.Html.escape;

import java.util.List;

/**
 * Draws a {@link Report} as one self-contained HTML page (no script, no external file): the title,
 * then each block in order. The only place that writes the reports' markup and style.
 */
public final class HtmlRenderer {

  static final String CSS = "body{font-family:system-ui,sans-serif;margin:24px;color:#222}"
      + "table{border-collapse:collapse;margin:8px 0 20px}"
      + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
      + "th{vertical-align:bottom}th small{font-weight:normal;color:#555;display:block}"
      + "th:first-child,td:first-child{text-align:left}"
      + "td.met{background:#e3f4e1}td.miss{background:#fde0dc}"
      + "td.prose{text-align:left;font-size:90%;min-width:12em}"
      + ".grid{display:grid;gap:8px}.grid h3,h4{margin:4px 0}"
      + ".grid svg{width:100%;height:auto;display:block}svg{max-width:100%}.wide{overflow-x:auto}"
      + ".verdicts{margin:8px 0 16px}.verdict{margin:4px 0;padding:4px 8px;"
      + "border-left:6px solid #999;max-width:70em}.verdict.met{background:#e3f4e1;border-color:#2e7d32}"
      + ".verdict.miss{background:#fde0dc;border-color:#c62828}.verdict.none{background:#eee;"
      + "border-color:#999}.verdict.info{border-color:#90a4ae}";

  private HtmlRenderer() {}

  public static String render(Report report) {
    StringBuilder html = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head>")
        .append("<meta charset=\"utf-8\"><title>Sluice load test: ")
        .append(escape(report.title()))
        .append("</title><style>")
        .append(CSS)
        .append("</style></head><body>\n<h1>Sluice load test: ")
        .append(escape(report.title()))
        .append("</h1>\n");
    blocks(html, report.blocks(), 2);
    return html.append("</body></html>\n").toString();
  }

  private static void blocks(StringBuilder html, List<Block> blocks, int level) {
    blocks.forEach(b -> block(html, b, level));
  }

  private static void block(StringBuilder html, Block block, int level) {
    // Java 17 has no pattern switch: one instanceof per kind of block
    if (block instanceof Block.Text t) {
      html.append("<p>").append(escape(t.text())).append("</p>\n");
    } else if (block instanceof Block.Items l) {
      html.append("<ul>\n");
      l.items().forEach(i -> html.append("<li>").append(escape(i)).append("</li>\n"));
      html.append("</ul>\n");
    } else if (block instanceof Block.Preformatted p) {
      html.append("<pre>").append(escape(p.text())).append("</pre>\n");
    } else if (block instanceof Block.Chart c) {
      html.append("<div>");
      if (c.caption() != null) {
        html.append("<h4>").append(escape(c.caption())).append("</h4>");
      }
      html.append(c.svg()).append("</div>\n");
    } else if (block instanceof Block.Verdicts v) {
      verdicts(html, v);
    } else if (block instanceof Block.Grid g) {
      html.append("<div class=\"grid\" style=\"grid-template-columns:repeat(")
          .append(g.columns())
          .append(",minmax(0,1fr))\">\n");
      blocks(html, g.cells(), level + 1);
      html.append("</div>\n");
    } else if (block instanceof Block.Section s) {
      int h = Math.min(level, 6);
      html.append("<h").append(h).append('>').append(escape(s.heading()));
      html.append("</h").append(h).append(">\n");
      blocks(html, s.blocks(), level + 1);
    } else if (block instanceof Block.Table t) {
      table(html, t);
    }
  }

  private static void verdicts(StringBuilder html, Block.Verdicts v) {
    html.append("<section class=\"verdicts\"><h2>").append(escape(v.heading())).append("</h2>\n");
    if (v.verdicts().isEmpty()) {
      html.append("<p class=\"verdict none\">nothing was run, so nothing was measured</p>\n");
    }
    for (Verdict verdict : v.verdicts()) {
      html.append("<p class=\"verdict ")
          .append(verdict.outcome().css())
          .append("\">")
          .append(escape(verdict.text()))
          .append("</p>\n");
    }
    html.append("</section>\n");
  }

  private static void table(StringBuilder html, Block.Table t) {
    html.append("<div class=\"wide\"><table>");
    if (!t.header().isEmpty()) {
      html.append("<tr>");
      t.header().forEach(c -> cell(html, "th", c));
      html.append("</tr>\n");
    }
    for (List<Block.Cell> row : t.rows()) {
      html.append("<tr>");
      row.forEach(c -> cell(html, "td", c));
      html.append("</tr>\n");
    }
    html.append("</table></div>\n");
  }

  private static void cell(StringBuilder html, String tag, Block.Cell c) {
    html.append('<').append(tag);
    if (c.span() > 1) {
      html.append(" colspan=\"").append(c.span()).append('"');
    }
    switch (c.mark()) {
      case MET -> html.append(" class=\"met\"");
      case MISSED -> html.append(" class=\"miss\"");
      case PROSE -> html.append(" class=\"prose\"");
      case PLAIN -> {}
    }
    html.append('>').append(escape(c.text()));
    if (c.note() != null) {
      html.append("<small>").append(escape(c.note())).append("</small>");
    }
    html.append("</").append(tag).append('>');
  }
}
