package dev.sluice.loadtest.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/** A part of a {@link Report}'s page; {@link HtmlRenderer} knows how to draw each. */
public sealed interface Block {

  /** A paragraph of plain text. */
  record Text(String text) implements Block {}

  /** A bulleted list of plain-text items. */
  record Items(List<String> items) implements Block {
    public Items {
      items = List.copyOf(items);
    }
  }

  /** Plain text kept as written, line breaks included (logs, sample lines). */
  record Preformatted(String text) implements Block {}

  /** A chart as inline SVG (from {@link Charts#svg}), under its caption (null: none). */
  record Chart(String caption, String svg) implements Block {}

  /** Headlines under a heading; an empty list says that nothing was run. */
  record Verdicts(String heading, List<Verdict> verdicts) implements Block {
    public Verdicts {
      verdicts = List.copyOf(verdicts);
    }
  }

  /** Blocks side by side, {@code columns} to a row (a chart per run, for instance). */
  record Grid(int columns, List<Block> cells) implements Block {
    public Grid {
      cells = List.copyOf(cells);
    }
  }

  /** A heading with its blocks; a section inside a section is a level further down. */
  record Section(String heading, List<Block> blocks) implements Block {
    public Section {
      blocks = List.copyOf(blocks);
    }

    public static Section of(String heading, Block... blocks) {
      return new Section(heading, Arrays.asList(blocks));
    }
  }

  /**
   * A table: a header row (empty: none) and rows of cells; the first column is the row's name.
   */
  record Table(List<Cell> header, List<List<Cell>> rows) implements Block {
    public Table {
      header = List.copyOf(header);
      rows = rows.stream().map(List::copyOf).toList();
    }

    /** A table of plain cells, built row by row. */
    public static Builder of(String... header) {
      return new Builder(Arrays.stream(header).map(Cell::of).toList());
    }

    public static Builder of(List<Cell> header) {
      return new Builder(header);
    }

    /** Collects rows. */
    public static final class Builder {
      private final List<Cell> header;
      private final List<List<Cell>> rows = new ArrayList<>();

      private Builder(List<Cell> header) {
        this.header = header;
      }

      public Builder row(Object... cells) {
        return cells(Arrays.stream(cells)
            .map(c -> c instanceof Cell cell ? cell : Cell.of(String.valueOf(c)))
            .toList());
      }

      public Builder cells(List<Cell> cells) {
        rows.add(cells);
        return this;
      }

      public boolean isEmpty() {
        return rows.isEmpty();
      }

      public Table build() {
        return new Table(header, rows);
      }
    }

    /**
     * A table comparing {@code items} side by side: a column each, headed by its name, a row per
     * figure.
     */
    public static <T> Comparison<T> comparing(List<T> items, Function<T, String> name) {
      return new Comparison<>(items, name);
    }

    /** Collects the rows of a side-by-side table. */
    public static final class Comparison<T> {
      private final List<T> items;
      private final Builder table;

      private Comparison(List<T> items, Function<T, String> name) {
        this.items = items;
        List<Cell> header = new ArrayList<>(List.of(Cell.of("")));
        items.forEach(i -> header.add(Cell.of(name.apply(i))));
        this.table = new Builder(header);
      }

      /** A row: its name, then the figure of each item. */
      public Comparison<T> row(String name, Function<T, String> figure) {
        List<Cell> cells = new ArrayList<>(List.of(Cell.of(name)));
        items.forEach(i -> cells.add(Cell.of(figure.apply(i))));
        table.cells(cells);
        return this;
      }

      public Table build() {
        return table.build();
      }
    }
  }

  /**
   * One cell of a {@link Table}.
   *
   * @param text plain text
   * @param note a second, smaller line (a column's aim), or null
   * @param mark how it is coloured
   * @param span columns it takes (1 for most)
   */
  record Cell(String text, String note, Mark mark, int span) {

    /** A cell's colouring: none, a target met or missed, or running prose (left-aligned). */
    public enum Mark {
      PLAIN,
      MET,
      MISSED,
      PROSE
    }

    public static Cell of(String text) {
      return new Cell(text, null, Mark.PLAIN, 1);
    }

    /** A column's name with its aim beneath. */
    public static Cell withAim(String text, String aim) {
      return new Cell(text, "aim " + aim, Mark.PLAIN, 1);
    }

    /** Green where met, red where missed. */
    public static Cell judged(String text, boolean met) {
      return new Cell(text, null, met ? Mark.MET : Mark.MISSED, 1);
    }

    public Cell marked(Mark mark) {
      return new Cell(text, note, mark, span);
    }

    public Cell spanning(int columns) {
      return new Cell(text, note, mark, columns);
    }
  }
}
