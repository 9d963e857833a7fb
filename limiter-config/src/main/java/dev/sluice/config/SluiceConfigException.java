package dev.sluice.config;

/**
 * A Sluice setting has a value that cannot be used, or a key Sluice does not know. Thrown at
 * start-up (or by a reload, which then keeps the previous settings); the message names the property
 * key, the offending value and, when known, where the value came from (a file, an environment
 * variable, a {@code -D} system property, or code).
 *
 * <p>The message is the whole story: uncaught, the exception prints as one line, {@code Exception
 * in thread "main" dev.sluice.config.SluiceConfigException: sluice.limiters.work.max-queue='lots'
 * (from system property -Dsluice.limiters.work.max-queue): not a whole number; allowed: >= 0}. It
 * carries no stack trace (a trace through the plugin's start-up says nothing about where the value
 * was written), except when the value came from the application's code ({@link #source()} {@code
 * "code"}): then the trace points to the line that set it.
 */
public final class SluiceConfigException extends IllegalArgumentException {

  private final String key;
  private final String value;
  private final String source;
  private final String problem;

  /**
   * @param key the property key, e.g. {@code sluice.limiters.transcode.max-queue}
   * @param value the value as written (may be null when a required value is missing)
   * @param problem what is wrong with it, e.g. "must be >= 0"
   */
  public SluiceConfigException(String key, String value, String problem) {
    this(key, value, null, problem);
  }

  /**
   * @param key the property key, e.g. {@code sluice.limiters.transcode.max-queue}
   * @param value the value as written (may be null when a required value is missing)
   * @param source where the value came from, e.g. {@code file /etc/app/sluice.properties}; null if
   *     unknown
   * @param problem what is wrong with it, e.g. "must be >= 0"
   */
  public SluiceConfigException(String key, String value, String source, String problem) {
    super(key + "=" + (value == null ? "<missing>" : "'" + value + "'")
        + (source == null ? "" : " (from " + source + ")") + ": " + problem);
    this.key = key;
    this.value = value;
    this.source = source;
    this.problem = problem;
    if (LimiterConfig.CODE.equals(source)) {
      super.fillInStackTrace(); // the line of the application that set the value
    }
  }

  /**
   * No trace unless the value came from code (the constructor fills that one): walking the stack
   * for every bad value and every unknown key made a file of many such keys slow to check.
   */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }

  /** The property key whose value is wrong. */
  public String key() {
    return key;
  }

  /** The offending value, as written. */
  public String value() {
    return value;
  }

  /** Where the value came from ({@code file ...}, {@code environment variable ...}, ...), or null. */
  public String source() {
    return source;
  }

  /** What is wrong, without key and value. */
  public String problem() {
    return problem;
  }

  /** The same error with the source filled in (if it had none). */
  public SluiceConfigException from(String where) {
    return source != null || where == null
        ? this
        : new SluiceConfigException(key, value, where, problem);
  }
}
