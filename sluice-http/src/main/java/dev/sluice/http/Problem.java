package dev.sluice.http;

import java.util.Map;

/**
 * An RFC 9457 problem detail, written as {@code application/problem+json} with {@link JsonWriter}
 * (a door must not force a JSON library on its users).
 */
public record Problem(
    String type, String title, int status, String detail, Map<String, Object> extensions) {

  public static final String MEDIA_TYPE = "application/problem+json";

  public Problem {
    extensions = Map.copyOf(extensions); // order does not matter: toJson sorts the members
  }

  /** The body, compact, the standard members first, then the extensions sorted by name. */
  public String toJson() {
    JsonWriter w = new JsonWriter()
        .beginObject()
        .member("type", type)
        .member("title", title)
        .member("status", status)
        .member("detail", detail);
    extensions.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
      Object value = e.getValue();
      if (value instanceof Double || value instanceof Float) {
        w.member(e.getKey(), ((Number) value).doubleValue());
      } else if (value instanceof Number n) {
        w.member(e.getKey(), n.longValue());
      } else if (value instanceof java.util.List<?> list) {
        w.name(e.getKey()).beginArray();
        for (Object item : list) {
          w.value(String.valueOf(item));
        }
        w.endArray();
      } else {
        w.member(e.getKey(), String.valueOf(value));
      }
    });
    return w.endObject().toString();
  }
}
