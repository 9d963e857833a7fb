package dev.sluice.http;

/**
 * The response a door writes a {@link Rejection} onto ({@link Answers#write}): each door maps these
 * few calls onto its framework's response (a Javalin context, a servlet response).
 */
public interface HttpAnswer {

  /** Sets the status code. */
  void status(int status);

  /** Sets {@code name} to {@code value}, replacing any value it had. */
  void setHeader(String name, String value);

  /** Adds a field line {@code name: value}, keeping those already there. */
  void addHeader(String name, String value);

  /** Removes every value of {@code name}. */
  void removeHeader(String name);

  /** Sets the content type and the body, the last call for an answer. */
  void body(String contentType, String body);
}
