package dev.sluice.javalin;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of an RFC 9651 (Structured Field Values) List of Items with Parameters, for tests
 * that check header values against the grammar; inner lists and dates are not needed here and are
 * refused. Bare items: String, Token, Integer, Decimal, Byte Sequence, Boolean. Throws {@link
 * IllegalArgumentException} on any departure from the grammar.
 */
final class SfList {

  /** One member: its bare item and its parameters (in order). */
  record Item(Object value, Map<String, Object> params) {}

  /** A Token bare item (kept apart from a String). */
  record Token(String value) {}

  private final String in;
  private int pos;

  private SfList(String in) {
    this.in = in;
  }

  /** The List of a field's combined value (field lines joined by ", "). */
  static List<Item> parse(String value) {
    SfList p = new SfList(value);
    p.skipSp();
    List<Item> items = p.list();
    p.skipSp();
    if (p.pos != p.in.length()) {
      throw p.fail("trailing characters");
    }
    return items;
  }

  private List<Item> list() {
    List<Item> members = new ArrayList<>();
    while (pos < in.length()) {
      members.add(item());
      skipOws();
      if (pos >= in.length()) {
        return members;
      }
      if (in.charAt(pos) != ',') {
        throw fail("expected ','");
      }
      pos++;
      skipOws();
      if (pos >= in.length()) {
        throw fail("trailing ','");
      }
    }
    return members;
  }

  private Item item() {
    if (peek() == '(') {
      throw fail("inner lists are not expected here");
    }
    Object value = bareItem();
    Map<String, Object> params = new LinkedHashMap<>();
    while (peek() == ';') {
      pos++;
      skipSp();
      String key = key();
      Object v = true;
      if (peek() == '=') {
        pos++;
        v = bareItem();
      }
      params.put(key, v);
    }
    return new Item(value, params);
  }

  private Object bareItem() {
    char c = peek();
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    if (c == '"') {
      return string();
    }
    if (c == ':') {
      return bytes();
    }
    if (c == '?') {
      pos++;
      char b = peek();
      pos++;
      if (b == '1') {
        return true;
      }
      if (b == '0') {
        return false;
      }
      throw fail("bad boolean");
    }
    if (c == '*' || (Character.isLetter(c) && c < 0x80)) {
      return token();
    }
    throw fail("no bare item");
  }

  private Object number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int digitsStart = pos;
    boolean decimal = false;
    while (pos < in.length()) {
      char c = in.charAt(pos);
      if (c >= '0' && c <= '9') {
        pos++;
      } else if (c == '.' && !decimal) {
        decimal = true;
        pos++;
      } else {
        break;
      }
    }
    String text = in.substring(start, pos);
    String digits = in.substring(digitsStart, pos);
    if (digits.isEmpty() || !Character.isDigit(digits.charAt(0))) {
      throw fail("number without digits");
    }
    if (!decimal) {
      if (digits.length() > 15) {
        throw fail("integer of more than 15 digits");
      }
      return Long.parseLong(text);
    }
    int dot = digits.indexOf('.');
    if (dot > 12 || digits.length() - dot - 1 < 1 || digits.length() - dot - 1 > 3) {
      throw fail("bad decimal");
    }
    return new BigDecimal(text);
  }

  private String string() {
    pos++; // the opening quote
    StringBuilder sb = new StringBuilder();
    while (pos < in.length()) {
      char c = in.charAt(pos++);
      if (c == '\\') {
        char next = pos < in.length() ? in.charAt(pos++) : 0;
        if (next != '"' && next != '\\') {
          throw fail("bad escape");
        }
        sb.append(next);
      } else if (c == '"') {
        return sb.toString();
      } else if (c < 0x20 || c > 0x7e) {
        throw fail("character outside printable ASCII in a string");
      } else {
        sb.append(c);
      }
    }
    throw fail("unterminated string");
  }

  private Token token() {
    int start = pos++;
    while (pos < in.length() && tchar(in.charAt(pos))) {
      pos++;
    }
    return new Token(in.substring(start, pos));
  }

  private byte[] bytes() {
    int start = ++pos;
    int end = in.indexOf(':', start);
    if (end < 0) {
      throw fail("unterminated byte sequence");
    }
    String b64 = in.substring(start, end);
    for (int i = 0; i < b64.length(); i++) {
      char c = b64.charAt(i);
      if (!(Character.isLetterOrDigit(c) && c < 0x80) && c != '+' && c != '/' && c != '=') {
        throw fail("bad base64 character");
      }
    }
    pos = end + 1;
    return Base64.getDecoder().decode(b64);
  }

  private String key() {
    char c = peek();
    if (!(c == '*' || (c >= 'a' && c <= 'z'))) {
      throw fail("a key starts with lcalpha or '*'");
    }
    int start = pos++;
    while (pos < in.length()) {
      char k = in.charAt(pos);
      if ((k >= 'a' && k <= 'z') || (k >= '0' && k <= '9') || "_-.*".indexOf(k) >= 0) {
        pos++;
      } else {
        break;
      }
    }
    return in.substring(start, pos);
  }

  private static boolean tchar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
  }

  private char peek() {
    return pos < in.length() ? in.charAt(pos) : 0;
  }

  private void skipSp() {
    while (peek() == ' ') {
      pos++;
    }
  }

  private void skipOws() {
    while (peek() == ' ' || peek() == '\t') {
      pos++;
    }
  }

  private IllegalArgumentException fail(String why) {
    return new IllegalArgumentException(why + " at " + pos + " in: " + in);
  }
}
