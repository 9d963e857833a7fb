package dev.sluice.loadtest.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an experiment returns: the page as blocks (text, tables, charts, verdicts, sections of
 * them) and the figures of {@code summary.json}. {@link Reporter} renders both; no experiment
 * writes HTML or JSON itself.
 *
 * @param title e.g. "overload", the page's heading after "Sluice load test: "
 * @param blocks the page, top to bottom
 * @param summary the fields of {@code summary.json}, in order
 */
public record Report(String title, List<Block> blocks, Map<String, Object> summary) {

  public Report {
    blocks = List.copyOf(blocks);
    summary = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(summary));
  }

  /** Every verdict on the page, top to bottom, those inside sections and grids included. */
  public List<Verdict> verdicts() {
    List<Verdict> all = new ArrayList<>();
    blocks.forEach(b -> b.collectVerdicts(all));
    return all;
  }

  /** The machine a run shared with its load: cores, system and JDK. */
  public static String machine() {
    return Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name")
        + " " + System.getProperty("os.arch") + ", JDK " + Runtime.version();
  }

  /** A report built block by block. */
  public static Builder titled(String title) {
    return new Builder(title);
  }

  /** Collects the blocks and the summary's fields in the order they are added. */
  public static final class Builder {
    private final String title;
    private final List<Block> blocks = new ArrayList<>();
    private final Map<String, Object> summary = new LinkedHashMap<>();

    private Builder(String title) {
      this.title = title;
    }

    public Builder add(Block block) {
      blocks.add(block);
      return this;
    }

    public Builder add(List<? extends Block> more) {
      blocks.addAll(more);
      return this;
    }

    public Builder text(String text) {
      return add(new Block.Text(text));
    }

    /**
     * A paragraph naming the {@link Report#machine()} and its load average before and after the run,
     * then {@code note} (what shares the machine, and what that does to the figures).
     */
    public Builder machine(String loadBefore, String loadAfter, String note) {
      return text("Machine: " + Report.machine() + ". Load average (1 / 5 / 15 min) before "
          + loadBefore + ", after " + loadAfter + ". " + note);
    }

    /**
     * Where and how a run ran: {@code command}, {@code machine}, {@code loadAverageBefore} and
     * {@code loadAverageAfter} in the summary; on the page the {@link #machine} paragraph with
     * {@code note}, then the command that runs it again.
     */
    public Builder ran(String command, String loadBefore, String loadAfter, String note) {
      return summary("command", command)
          .summary("machine", Report.machine())
          .summary("loadAverageBefore", loadBefore)
          .summary("loadAverageAfter", loadAfter)
          .machine(loadBefore, loadAfter, note)
          .text("Command: " + command);
    }

    /** A field of {@code summary.json}; its value is written as Jackson writes it. */
    public Builder summary(String field, Object value) {
      summary.put(field, value);
      return this;
    }

    public Report build() {
      return new Report(title, blocks, summary);
    }
  }
}
