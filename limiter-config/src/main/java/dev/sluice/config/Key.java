package dev.sluice.config;

import java.util.Objects;

/**
 * One plugin-wide property Sluice understands: its name, how its text is parsed and checked, its
 * default, one line of documentation. Declared once in {@link SluiceKeys} (a limiter's keys are
 * {@link LimiterKey}s, in {@link LimiterKeys}); properties, the strict check of unknown keys and
 * the README's table all come from those declarations.
 *
 * @param <T> the parsed value's type
 */
public final class Key<T> {

  private final String name;
  private final T defaultValue;
  private final ValueParser<T> parser;
  private final String doc;

  private Key(String name, T defaultValue, ValueParser<T> parser, String doc) {
    this.name = Objects.requireNonNull(name, "name");
    this.defaultValue = defaultValue;
    this.parser = Objects.requireNonNull(parser, "parser");
    this.doc = Objects.requireNonNull(doc, "doc");
  }

  /**
   * A key with a default (null: none, the value is then optional).
   *
   * @param name the full key ({@code sluice.redis.timeout}), or for a limiter key the part after
   *     {@code sluice.limiters.<name>.} ({@code max-queue})
   */
  public static <T> Key<T> of(String name, T defaultValue, ValueParser<T> parser, String doc) {
    return new Key<>(name, defaultValue, parser, doc);
  }

  public String name() {
    return name;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  public String allowed() {
    return parser.allowed();
  }

  /**
   * Parses {@code raw} (trimmed); for a key without a default, blank text means unset (null).
   *
   * @param fullKey the key as the user wrote it, for the message
   * @param source where the text came from, for the message
   * @throws SluiceConfigException naming key, value, source and the problem
   */
  public T parse(String fullKey, String raw, String source) {
    if (defaultValue == null && (raw == null || raw.isBlank())) {
      return null; // an optional key written empty (`priority-header=`) means "not set"
    }
    try {
      return parser.parse(raw == null ? "" : raw.trim());
    } catch (SluiceConfigException e) {
      throw new SluiceConfigException(fullKey, raw, source, e.problem());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(fullKey, raw, source, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
