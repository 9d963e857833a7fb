package dev.sluice.servlet;

import dev.sluice.http.HttpAnswer;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A servlet response as the response {@link dev.sluice.http.Answers#write} writes onto. */
final class ServletAnswer implements HttpAnswer {

  private final HttpServletResponse res;

  ServletAnswer(HttpServletResponse res) {
    this.res = res;
  }

  @Override
  public void status(int status) {
    res.setStatus(status);
  }

  @Override
  public void setHeader(String name, String value) {
    res.setHeader(name, value);
  }

  @Override
  public void addHeader(String name, String value) {
    res.addHeader(name, value);
  }

  /**
   * Nothing to remove: the filter writes a rule's headers only once the request is admitted or
   * refused by the rule (the servlet API has no removal that every container honours).
   */
  @Override
  public void removeHeader(String name) {
    // see above
  }

  @Override
  public void body(String contentType, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    res.setContentType(contentType);
    res.setContentLength(bytes.length);
    try {
      res.getOutputStream().write(bytes);
    } catch (IOException e) {
      // the client is gone: nobody reads the answer
      throw new UncheckedIOException(e);
    }
  }
}
