package dev.sluice.javalin;

import io.javalin.config.JavalinState;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The live page, served when {@code sluice.dashboard.path} is set: a self-contained HTML page (no
 * CDN, no external font: it must work where the service has no internet access) that polls
 * {@code <path>/data}, the {@link Status} JSON, every second. Both paths bypass the limiters and
 * rules, like health checks: the page is most needed when the service is saturated.
 */
final class Dashboard {

  private static final String RESOURCE = "dev/sluice/javalin/dashboard.html";

  private Dashboard() {}

  static void register(JavalinState state, String path, Status status) {
    String base = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    String html = page();
    state.routes.get(
        base,
        ctx -> ctx.contentType("text/html; charset=utf-8")
            .header("Cache-Control", "no-store")
            .result(html));
    state.routes.get(
        dataPath(base),
        ctx -> ctx.contentType("application/json")
            .header("Cache-Control", "no-store")
            .result(status.json(System.currentTimeMillis())));
  }

  static String dataPath(String base) {
    return base + "/data";
  }

  private static String page() {
    try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the plugin's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
