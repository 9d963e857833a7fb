package dev.sluice.http;

/**
 * Sluice's one JSON writer, so that the problem+json bodies of every door's answers and the
 * plugin's status ({@code /sluice}, the live page's data) need no JSON library in the user's
 * application (with Javalin alone, {@code ctx.json(..)} answers 500 for want of Jackson). Writes compact JSON; strings are
 * escaped per RFC 8259 (quote, backslash, control characters, and U+2028/U+2029 so the text is
 * also safe inside a script). Not thread-safe.
 */
public final class JsonWriter {

  private final StringBuilder out = new StringBuilder(256);
  // one bit per open container: whether it already has a member (so the next one needs a comma)
  private long hasMember;
  private int depth;
  private boolean afterName;

  public JsonWriter beginObject() {
    return open('{');
  }

  public JsonWriter endObject() {
    return close('}');
  }

  public JsonWriter beginArray() {
    return open('[');
  }

  public JsonWriter endArray() {
    return close(']');
  }

  /** The next member's name (inside an object). */
  public JsonWriter name(String name) {
    separate();
    string(name);
    out.append(':');
    afterName = true;
    return this;
  }

  public JsonWriter value(String s) {
    separate();
    if (s == null) {
      out.append("null");
    } else {
      string(s);
    }
    return this;
  }

  public JsonWriter value(long n) {
    separate();
    out.append(n);
    return this;
  }

  /** A number; NaN and infinities, which JSON cannot carry, are written as null. */
  public JsonWriter value(double x) {
    separate();
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      out.append("null");
    } else if (x == Math.rint(x) && Math.abs(x) < 1e15) {
      out.append((long) x);
    } else {
      out.append(x);
    }
    return this;
  }

  public JsonWriter value(boolean b) {
    separate();
    out.append(b);
    return this;
  }

  public JsonWriter nullValue() {
    separate();
    out.append("null");
    return this;
  }

  public JsonWriter member(String name, String s) {
    return name(name).value(s);
  }

  public JsonWriter member(String name, long n) {
    return name(name).value(n);
  }

  public JsonWriter member(String name, double x) {
    return name(name).value(x);
  }

  public JsonWriter member(String name, boolean b) {
    return name(name).value(b);
  }

  @Override
  public String toString() {
    if (depth != 0) {
      throw new IllegalStateException(depth + " containers left open");
    }
    return out.toString();
  }

  private JsonWriter open(char c) {
    separate();
    if (depth == 63) {
      throw new IllegalStateException("nested too deep");
    }
    out.append(c);
    depth++;
    hasMember &= ~(1L << depth);
    return this;
  }

  private JsonWriter close(char c) {
    if (depth == 0) {
      throw new IllegalStateException("nothing to close");
    }
    out.append(c);
    depth--;
    return this;
  }

  /** A comma before every member but the first of its container; none right after a name. */
  private void separate() {
    if (afterName) {
      afterName = false;
      return;
    }
    long bit = 1L << depth;
    if ((hasMember & bit) != 0) {
      out.append(',');
    }
    hasMember |= bit;
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029' || c == 0x7f) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
