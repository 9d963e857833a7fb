package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.sluice.config.SluiceProperties;
import io.javalin.Javalin;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application whose only routes are Sluice's live page (its path given with a trailing slash)
 * declares no route of its own: its limiter paths are not checked against the routes, and it
 * starts.
 */
class LivePageOnlyAppTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(SluicePlugin.class);

  @Test
  void theLivePagesRoutesAreNotTheApplicationsEvenWithATrailingSlash() {
    SluicePlugin plugin = new SluicePlugin(cfg -> cfg.properties(SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "1",
            "sluice.dashboard.path", "/sluice/dashboard/"))
        .build()));
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(plugin);
      config.routes.before(
          "/api/*", ctx -> ctx.result("answered in a filter").skipRemainingHandlers());
    });
    Level before = log.logger().getLevel();
    log.logger().setLevel(Level.INFO); // the skip is said at info
    try {
      app.start("127.0.0.1", 0);
      assertThat(log.events())
          .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("declares no route"));
      assertThat(log.warnings()).noneMatch(w -> w.contains("matches no route"));
    } finally {
      log.logger().setLevel(before);
      app.stop();
    }
  }
}
