package dev.sluice.loadtest.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** A part of a {@link Report}'s page; {@link HtmlRenderer} knows how to draw each. */
public sealed interface Block {

  /** Prints the tables of this block (inside sections too) line by line: the console's echo. */
  default void echo() {
    if (this instanceof Table t) {
      t.lines().forEach(System.out::println);
    } else if (this instanceof Section s) {
      s.blocks().forEach(Block::echo);
    }
  }

  /** Adds the verdicts of this block (inside sections and grids too) to {@code into}. */
  default void collectVerdicts(List<Verdict> into) {
    if (this instanceof Verdicts v) {
      into.addAll(v.verdicts());
    } else if (this instanceof Section s) {
      s.blocks().forEach(b -> b.collectVerdicts(into));
    } else if (this instanceof Grid g) {
      g.cells().forEach(b -> b.collectVerdicts(into));
    }
  }

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

    /**
     * Each row on one line, {@code header value} pairs: the console's echo of the same table the
     * page shows.
     */
    public List<String> lines() {
      return rows.stream()
          .map(row -> IntStream.range(0, row.size())
              .mapToObj(i -> (i < header.size() && !header.get(i).text().isEmpty()
                      ? header.get(i).text() + " "
                      : "")
                  + row.get(i).text())
              .collect(Collectors.joining(", ")))
          .toList();
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
        return cells(Arrays.stream(cells).map(Cell::of).toList());
      }

      /** A row per entry, in the map's order: the key, then the value. */
      public Builder rows(Map<?, ?> entries) {
        entries.forEach((k, v) -> row(k, v));
        return this;
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
     * A row per judged figure: what is judged (under {@code name}), the aim, the outcome (green
     * met, red missed) and the figure.
     */
    public static Table checks(String name, List<Verdict> checks) {
      Builder t = of(name, "target", "verdict", "figure");
      checks.forEach(c -> t.row(c.name(), c.target(), Cell.of(c.outcome()), c.measured()));
      return t.build();
    }

    /** A table with a row per item and a cell per column. */
    public static <T> Table of(List<Column<T>> columns, List<T> rows) {
      return of(columns, rows, 0, r -> null);
    }

    /**
     * A table with a row per item and a cell per column; an item that did not run (its {@code
     * error} is not null) keeps its first {@code named} cells and says why across the rest, in red.
     */
    public static <T> Table of(
        List<Column<T>> columns, List<T> rows, int named, Function<T, String> error) {
      Builder table = new Builder(columns.stream().map(Column::header).toList());
      for (T row : rows) {
        List<Cell> cells = new ArrayList<>();
        String failed = error.apply(row);
        for (Column<T> column : failed == null ? columns : columns.subList(0, named)) {
          cells.add(column.cell().apply(row));
        }
        if (failed != null) {
          cells.add(Cell.judged("not run: " + failed, false).spanning(columns.size() - named));
        }
        table.cells(cells);
      }
      return table.build();
    }

    /**
     * One column of a table of {@code T}s: its header and its cell for each row.
     *
     * @param <T> what a row shows
     */
    public record Column<T>(Cell header, Function<T, Cell> cell) {

      /** A column of plain cells. */
      public static <T> Column<T> of(String header, Function<T, ?> value) {
        return new Column<>(Cell.of(header), r -> Cell.of(value.apply(r)));
      }

      /**
       * A column judged against {@code aim} (beneath its header): green where met, red where
       * missed, plain where the aim does not apply ({@code met} empty).
       */
      public static <T> Column<T> judged(
          String header, String aim, Function<T, ?> value, Function<T, Optional<Boolean>> met) {
        return new Column<>(Cell.withAim(header, aim), r -> {
          String text = String.valueOf(value.apply(r));
          return met.apply(r).map(m -> Cell.judged(text, m)).orElseGet(() -> Cell.of(text));
        });
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

    /** The cell itself, or a plain cell of the value's text. */
    public static Cell of(Object value) {
      return value instanceof Cell cell ? cell : of(String.valueOf(value));
    }

    /** An outcome as a reader says it: green where met, red where missed, plain otherwise. */
    public static Cell of(Verdict.Outcome outcome) {
      Mark mark = switch (outcome) {
        case MET -> Mark.MET;
        case MISSED -> Mark.MISSED;
        case NOT_MEASURED, INFO -> Mark.PLAIN;
      };
      return new Cell(outcome.label(), null, mark, 1);
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
