package dev.sluice.rules;

/**
 * A rules file that cannot be used, with where and why: {@code ratelimits.yaml:7: rules[1].algorithm:
 * unknown algorithm 'tokenbucket'; allowed: token-bucket, ...}.
 */
public final class RulesFileException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final String field;
  private final String problem;
  private final java.util.List<RulesFileException> all;

  /**
   * @param source the file name or URL
   * @param line 1-based line, or 0 when the problem is not on one line (an unreadable file)
   * @param field the path of the field, e.g. {@code rules[1].algorithm}
   * @param problem what is wrong, naming the value
   */
  public RulesFileException(String source, int line, String field, String problem) {
    this(
        source + (line > 0 ? ":" + line : "") + ": " + field + ": " + problem,
        source,
        line,
        field,
        problem,
        null);
  }

  private RulesFileException(
      String message,
      String source,
      int line,
      String field,
      String problem,
      java.util.List<RulesFileException> all) {
    super(message);
    this.source = source;
    this.line = line;
    this.field = field;
    this.problem = problem;
    this.all = all == null ? java.util.List.of(this) : java.util.List.copyOf(all);
  }

  /**
   * Several problems of one file as one exception: the first's location, and a message that
   * lists every one ({@code ratelimits.yaml:3: rules[0].limit: ...; and 2 more: ...:7: ...}).
   */
  static RulesFileException all(java.util.List<RulesFileException> problems) {
    RulesFileException first = problems.get(0);
    if (problems.size() == 1) {
      return first;
    }
    StringBuilder message = new StringBuilder(first.getMessage())
        .append("; and ")
        .append(problems.size() - 1)
        .append(" more: ");
    for (int i = 1; i < problems.size(); i++) {
      message.append(i > 1 ? "; " : "").append(problems.get(i).getMessage());
    }
    return new RulesFileException(
        message.toString(), first.source, first.line, first.field, first.problem, problems);
  }

  /** Every problem found in the file, this one first (one element for a single problem). */
  public java.util.List<RulesFileException> all() {
    return all;
  }

  /** The file name or URL. */
  public String source() {
    return source;
  }

  /** The 1-based line of the problem, 0 when it has none. */
  public int line() {
    return line;
  }

  /** The path of the field at fault, e.g. {@code rules[1].algorithm}. */
  public String field() {
    return field;
  }

  /** What is wrong, without the location. */
  public String problem() {
    return problem;
  }
}
