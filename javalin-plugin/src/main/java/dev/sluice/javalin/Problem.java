package dev.sluice.javalin;

import java.util.Map;

/**
 * An RFC 9457 problem detail, written as {@code application/problem+json} without a JSON library
 * (the plugin must not force one on its users).
 */
record Problem(String type, String title, int status, String detail, Map<String, Object> extensions) {

  static final String MEDIA_TYPE = "application/problem+json";

  Problem {
    extensions = Map.copyOf(extensions); // order does not matter: toJson sorts the members
  }

  String toJson() {
    StringBuilder sb = new StringBuilder(256).append('{');
    field(sb, "type", type).append(',');
    field(sb, "title", title).append(',');
    sb.append("\"status\":").append(status).append(',');
    field(sb, "detail", detail);
    extensions.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> {
          sb.append(',');
          if (e.getValue() instanceof Number n) {
            string(sb, e.getKey()).append(':').append(n);
          } else {
            field(sb, e.getKey(), String.valueOf(e.getValue()));
          }
        });
    return sb.append('}').toString();
  }

  private static StringBuilder field(StringBuilder sb, String name, String value) {
    return string(string(sb, name).append(':'), value);
  }

  private static StringBuilder string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"');
  }
}
