package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Block.Cell;
import dev.sluice.loadtest.report.Block.Table;
import dev.sluice.loadtest.report.Block.Table.Column;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableColumnsTest {

  private record Run(String name, double cpu, String error) {}

  private static final List<Column<Run>> COLUMNS = List.of(
      Column.of("variant", Run::name),
      Column.judged("CPU %", "≤ 75", Run::cpu, r -> Optional.of(r.cpu() <= 75)),
      Column.of("note", r -> "-"));

  @Test
  void eachColumnGivesItsHeaderAndItsCellOfEveryRow() {
    Table t = Table.of(COLUMNS, List.of(new Run("a", 71.5, null), new Run("b", 90, null)));

    assertThat(t.header())
        .containsExactly(Cell.of("variant"), Cell.withAim("CPU %", "≤ 75"), Cell.of("note"));
    assertThat(t.rows())
        .containsExactly(
            List.of(Cell.of("a"), Cell.judged("71.5", true), Cell.of("-")),
            List.of(Cell.of("b"), Cell.judged("90.0", false), Cell.of("-")));
  }

  @Test
  void aRowThatDidNotRunKeepsItsNameAndSaysWhyAcrossTheRest() {
    Table t = Table.of(COLUMNS, List.of(new Run("a", Double.NaN, "refused")), 1, Run::error);

    assertThat(t.rows())
        .containsExactly(
            List.of(Cell.of("a"), Cell.judged("not run: refused", false).spanning(2)));
  }
}
