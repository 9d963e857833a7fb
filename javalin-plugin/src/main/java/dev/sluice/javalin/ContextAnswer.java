package dev.sluice.javalin;

import dev.sluice.http.HttpAnswer;
import io.javalin.http.Context;

/** A Javalin context as the response {@link dev.sluice.http.Answers#write} writes onto. */
final class ContextAnswer implements HttpAnswer {

  private final Context ctx;

  ContextAnswer(Context ctx) {
    this.ctx = ctx;
  }

  @Override
  public void status(int status) {
    ctx.status(status);
  }

  @Override
  public void setHeader(String name, String value) {
    ctx.header(name, value);
  }

  @Override
  public void addHeader(String name, String value) {
    ctx.res().addHeader(name, value);
  }

  @Override
  public void removeHeader(String name) {
    ctx.res().setHeader(name, null);
  }

  @Override
  public void body(String contentType, String body) {
    ctx.contentType(contentType);
    ctx.result(body);
  }
}
