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

  /**
   * @param source the file name or URL
   * @param line 1-based line, or 0 when the problem is not on one line (an unreadable file)
   * @param field the path of the field, e.g. {@code rules[1].algorithm}
   * @param problem what is wrong, naming the value
   */
  public RulesFileException(String source, int line, String field, String problem) {
    super(source + (line > 0 ? ":" + line : "") + ": " + field + ": " + problem);
    this.source = source;
    this.line = line;
    this.field = field;
    this.problem = problem;
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
