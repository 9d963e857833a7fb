package dev.sluice.javalin;

import io.javalin.http.Context;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * A stand-in Javalin {@link Context} for tests without a server: it answers its path, context path
 * and attributes (kept in a map the test can read), and whatever else {@code more} answers; any
 * other call fails, so a test notices when the code under test starts asking for more.
 */
final class StandInContext {

  /** The rest of a stand-in's answers, by method name; throws for a call it does not answer. */
  @FunctionalInterface
  interface More {
    Object answer(String method, Object[] args);

    More NOTHING = (method, args) -> {
      throw new UnsupportedOperationException(method);
    };
  }

  private StandInContext() {}

  static Context of(String path, String contextPath, Map<String, Object> attributes, More more) {
    return (Context) Proxy.newProxyInstance(
        StandInContext.class.getClassLoader(),
        new Class<?>[] {Context.class},
        (proxy, m, args) -> switch (m.getName()) {
          case "path" -> path;
          case "contextPath" -> contextPath;
          case "attribute" -> {
            if (args.length == 2) {
              attributes.put((String) args[0], args[1]);
              yield null;
            }
            yield attributes.get((String) args[0]);
          }
          case "toString" -> "a request for " + path;
          default -> more.answer(m.getName(), args);
        });
  }
}
