package dev.sluice.javalin;

import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletApiResponse;
import org.eclipse.jetty.http.HttpField;

/**
 * The rate-limit header fields ({@link dev.sluice.http.RateHeaders}) on a Javalin answer, kept as
 * Jetty's immutable {@link HttpField}s: the repeating ones are added to an answer without
 * allocating.
 */
final class RateHeaders extends dev.sluice.http.RateHeaders<Context, HttpField> {

  RateHeaders(boolean draft, boolean x) {
    super(draft, x, JettyFields.INSTANCE);
  }

  private enum JettyFields implements Fields<Context, HttpField> {
    INSTANCE;

    @Override
    public HttpField field(String name, String value) {
      return new HttpField(name, value);
    }

    /**
     * Adds {@code field} as Jetty's {@code addHeader} would add its name and value (which it does
     * by building this very field), without building it: on another servlet container, by name
     * and value.
     */
    @Override
    public void add(Context ctx, HttpField field) {
      HttpServletResponse res = ctx.res();
      if (res instanceof ServletApiResponse jetty) {
        jetty.getResponse().getHeaders().add(field);
      } else {
        res.addHeader(field.getName(), field.getValue());
      }
    }

    @Override
    public void add(Context ctx, String name, String value) {
      ctx.res().addHeader(name, value);
    }
  }
}
