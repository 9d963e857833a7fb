package dev.sluice.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The paths a rule guards: an exact path ({@code /api/history}), a path with single-segment
 * wildcards ({@code /api/history/*}, {@code /api/*}{@code /claim}), or a subtree ({@code /api/**}:
 * {@code /api} itself and every path below it, at any depth).
 *
 * <p>Paths are compared segment by segment; empty segments are ignored, so {@code /api//history/}
 * is {@code /api/history} (a client cannot step around a rule with an extra slash). Matching is
 * case-sensitive, as paths are.
 */
public final class ResourcePattern {

  /** The one-segment wildcard. */
  public static final String ANY_ONE = "*";

  static final String ANY_DEPTH = "**";

  private final String text;
  private final List<String> segments; // without a trailing "**"
  private final boolean subtree;
  private final int literals;

  private ResourcePattern(String text, List<String> segments, boolean subtree) {
    this.text = text;
    this.segments = List.copyOf(segments);
    this.subtree = subtree;
    this.literals = (int) segments.stream().filter(s -> !s.equals(ANY_ONE)).count();
  }

  /**
   * Parses a pattern.
   *
   * @throws IllegalArgumentException naming the pattern when it does not start with {@code /}, has
   *     {@code **} anywhere but at the end, or mixes {@code *} with other characters in a segment
   */
  public static ResourcePattern parse(String pattern) {
    if (pattern == null || !pattern.startsWith("/")) {
      throw new IllegalArgumentException("resource must start with '/' but was '" + pattern + "'");
    }
    if (pattern.length() > 2048) {
      throw new IllegalArgumentException(
          "resource must be at most 2048 characters but was " + pattern.length());
    }
    List<String> parts = segments(pattern);
    boolean subtree = false;
    for (int i = 0; i < parts.size(); i++) {
      String part = parts.get(i);
      if (part.equals(ANY_DEPTH)) {
        if (i != parts.size() - 1) {
          throw new IllegalArgumentException(
              "resource '" + pattern + "': '**' is only allowed as the last segment");
        }
        subtree = true;
      } else if (!part.equals(ANY_ONE) && part.indexOf('*') >= 0) {
        throw new IllegalArgumentException("resource '" + pattern + "': segment '" + part
            + "' mixes '*' with other characters; use '*' or '**' as a whole segment");
      } else if (part.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        throw new IllegalArgumentException(
            "resource '" + pattern + "' contains whitespace or control characters");
      }
    }
    List<String> fixed = subtree ? parts.subList(0, parts.size() - 1) : parts;
    return new ResourcePattern(pattern, fixed, subtree);
  }

  /** {@code prefix} and every path below it (the Diana layout's {@code Url}). */
  public static ResourcePattern subtreeOf(String prefix) {
    String base = prefix == null ? null : prefix.endsWith("/") ? prefix : prefix + "/";
    return parse(base + ANY_DEPTH);
  }

  /** Whether the path (no query string) is one this pattern guards. */
  public boolean matches(String path) {
    if (path == null) {
      return false;
    }
    // walks the path's segments in place: a limiter's pattern is matched on every request, and
    // splitting the path into a list of substrings first was an allocation per request
    int matched = 0;
    int length = path.length();
    int start = 0;
    while (start <= length) {
      int slash = path.indexOf('/', start);
      int end = slash < 0 ? length : slash;
      if (end > start) { // empty segments are ignored, as in segments()
        if (matched == segments.size()) {
          return subtree; // deeper than the pattern: only a subtree reaches
        }
        String expected = segments.get(matched);
        if (!expected.equals(ANY_ONE)
            && !(expected.length() == end - start
                && path.regionMatches(start, expected, 0, end - start))) {
          return false;
        }
        matched++;
      }
      start = end + 1;
    }
    return matched == segments.size();
  }

  /**
   * How deep the pattern reaches before any trailing {@code **}: {@code /} and {@code /**} are 0,
   * {@code /api/**} is 1, {@code /api/*} and {@code /api/history} are 2. Lower is broader.
   */
  public int depth() {
    return segments.size();
  }

  /** Whether the pattern ends in {@code **}. */
  public boolean isSubtree() {
    return subtree;
  }

  /** How many segments are literal (not wildcards): the more, the narrower. */
  public int literalSegments() {
    return literals;
  }

  /** The segments before any trailing {@code **}; {@code *} stands for one segment. */
  public List<String> fixedSegments() {
    return segments;
  }

  /** The non-empty segments of {@code path}. */
  public static List<String> segments(String path) {
    List<String> parts = new ArrayList<>();
    int start = 0;
    int length = path.length();
    while (start <= length) {
      int slash = path.indexOf('/', start);
      int end = slash < 0 ? length : slash;
      if (end > start) {
        parts.add(path.substring(start, end));
      }
      start = end + 1;
    }
    return parts;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ResourcePattern that
        && subtree == that.subtree
        && segments.equals(that.segments);
  }

  @Override
  public int hashCode() {
    return Objects.hash(segments, subtree);
  }

  /** The pattern as written. */
  @Override
  public String toString() {
    return text;
  }
}
