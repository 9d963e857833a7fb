package dev.sluice.javalin;

import dev.sluice.http.DashboardPage;
import dev.sluice.http.StatusReport;
import io.javalin.config.JavalinState;

/**
 * The live page, served when {@code sluice.dashboard.path} is set: {@link DashboardPage} at the
 * path and the {@link StatusReport} JSON at {@code <path>/data}. Both paths bypass the limiters and
 * rules, like health checks: the page is most needed when the service is saturated.
 */
final class Dashboard {

  private Dashboard() {}

  static void register(JavalinState state, String path, StatusReport status) {
    String base = DashboardPage.base(path);
    String html = DashboardPage.html();
    state.routes.get(
        base,
        ctx -> ctx.contentType(DashboardPage.CONTENT_TYPE)
            .header("Cache-Control", "no-store")
            .result(html));
    state.routes.get(
        dataPath(base),
        ctx -> ctx.contentType("application/json")
            .header("Cache-Control", "no-store")
            .result(status.json(System.currentTimeMillis())));
  }

  static String dataPath(String base) {
    return DashboardPage.dataPath(base);
  }
}
