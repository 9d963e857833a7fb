package dev.sluice.config;

import dev.sluice.concurrency.LimiterSpec;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One property of a limiter, {@code sluice.limiters.<name>.<key>}, declared once in {@link
 * LimiterKeys}: its name, how its text is parsed and checked, where its value goes, one line of
 * documentation. Where the value goes is a setter: most keys set a field of the core's {@link
 * LimiterSpec.Builder} ({@link #spec}); the others set what the door reads per request or what
 * several keys make together ({@link #of}, onto {@link LimiterConfig.Builder}). Properties and
 * code reach the spec through the same setter, so a value's path from the file to the limiter is
 * the key's declaration.
 *
 * @param <T> the parsed value's type
 */
public final class LimiterKey<T> {

  private final String name;
  private final ValueParser<T> parser;
  private final BiConsumer<LimiterConfig.Builder, T> setter;
  private final String doc;
  private final boolean optional;
  private final T unset;

  private LimiterKey(
      String name,
      ValueParser<T> parser,
      BiConsumer<LimiterConfig.Builder, T> setter,
      String doc,
      boolean optional,
      T unset) {
    this.name = Objects.requireNonNull(name, "name");
    this.parser = Objects.requireNonNull(parser, "parser");
    this.setter = Objects.requireNonNull(setter, "setter");
    this.doc = Objects.requireNonNull(doc, "doc");
    this.optional = optional;
    this.unset = unset;
  }

  /**
   * A key that sets a field of the core's spec.
   *
   * @param name the part after {@code sluice.limiters.<name>.}, e.g. {@code max-queue}
   * @param setter the spec builder's setter, e.g. {@code LimiterSpec.Builder::maxQueue}
   */
  static <T> LimiterKey<T> spec(
      String name, ValueParser<T> parser, BiConsumer<LimiterSpec.Builder, T> setter, String doc) {
    return new LimiterKey<>(name, parser, (b, v) -> setter.accept(b.spec, v), doc, false, null);
  }

  /** A key that sets a part of {@link LimiterConfig.Builder} itself (not one field of the spec). */
  static <T> LimiterKey<T> of(
      String name, ValueParser<T> parser, BiConsumer<LimiterConfig.Builder, T> setter, String doc) {
    return new LimiterKey<>(name, parser, setter, doc, false, null);
  }

  /**
   * The same key, optional: written empty ({@code priority-header=}) it means "not set" and sets
   * {@code unset} (null, or the spec's "off" value such as {@code Duration.ZERO}).
   */
  LimiterKey<T> optional(T unset) {
    return new LimiterKey<>(name, parser, setter, doc, true, unset);
  }

  /** The part after {@code sluice.limiters.<name>.}. */
  public String name() {
    return name;
  }

  /** One line for the README's table. */
  public String doc() {
    return doc;
  }

  /** How errors and the README describe the allowed values. */
  public String allowed() {
    return parser.allowed();
  }

  /**
   * Parses {@code raw} (trimmed); for an optional key, blank text means unset.
   *
   * @param fullKey the key as the user wrote it, for the message
   * @param source where the text came from, for the message
   * @throws SluiceConfigException naming key, value, source and the problem
   */
  public T parse(String fullKey, String raw, String source) {
    if (optional && (raw == null || raw.isBlank())) {
      return unset;
    }
    try {
      return parser.parse(raw == null ? "" : raw.trim());
    } catch (SluiceConfigException e) {
      throw new SluiceConfigException(fullKey, raw, source, e.problem());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(fullKey, raw, source, e.getMessage());
    }
  }

  /** Checks a value given in code, with the same rule as {@link #parse}. */
  T check(String fullKey, T value) {
    Objects.requireNonNull(value, fullKey);
    try {
      // text given in code goes through the parser, which is the check of a free-form value
      return value instanceof String s ? parser.parse(s.trim()) : parser.check(value);
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(
          fullKey, String.valueOf(value), LimiterConfig.CODE, e.getMessage());
    }
  }

  /**
   * Hands a checked value to the key's setter.
   *
   * @throws SluiceConfigException when the setter refuses it, naming key, value and source
   */
  void set(LimiterConfig.Builder builder, T value, String fullKey, String source) {
    try {
      setter.accept(builder, value);
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(fullKey, String.valueOf(value), source, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
