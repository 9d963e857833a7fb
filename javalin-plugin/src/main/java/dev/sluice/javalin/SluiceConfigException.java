package dev.sluice.javalin;

/**
 * A Sluice setting has a value that cannot be used. Thrown at start-up (or by a reload, which then
 * keeps the previous settings); the message names the property key and the offending value.
 */
public final class SluiceConfigException extends IllegalArgumentException {

  private final String key;
  private final String value;

  /**
   * @param key the property key, e.g. {@code sluice.limiters.transcode.max-queue}
   * @param value the value as written (may be null when a required value is missing)
   * @param problem what is wrong with it, e.g. "must be >= 0"
   */
  public SluiceConfigException(String key, String value, String problem) {
    super(key + "=" + (value == null ? "<missing>" : "'" + value + "'") + ": " + problem);
    this.key = key;
    this.value = value;
  }

  /** The property key whose value is wrong. */
  public String key() {
    return key;
  }

  /** The offending value, as written. */
  public String value() {
    return value;
  }
}
