package dev.sluice.demo;

import io.javalin.config.JavalinConfig;
import io.javalin.plugin.bundled.RateLimitPlugin;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.handler.QoSHandler;

/**
 * A measurement aid, not a feature: the limiter another project would put in front of
 * {@link #PATH}, so the load test's overhead run can compare Sluice's cost with its peers' on the same
 * light endpoint ({@code demo.overhead-peer}). Each peer is set so high it never rejects: what is
 * measured is the cost of asking, not of refusing.
 */
enum OverheadPeer {
  /** No peer (the default). */
  NONE,
  /** Javalin's bundled {@code RateLimitPlugin}: a fixed window per IP, method and path. */
  RATELIMITPLUGIN,
  /** Jetty 12's {@code QoSHandler} in front of the whole server (it runs before routing). */
  QOS,
  /**
   * Not a limiter: three empty handlers where a limiting plugin hooks in (before, before-matched,
   * after, on every path), so the run shows what Javalin itself spends on any plugin's handlers.
   */
  HANDLERS;

  static final String KEY = "demo.overhead-peer";
  /** The light endpoint the peers guard; it answers a constant. */
  static final String PATH = "/api/ping";
  /** Far above what two cores serve in a minute. */
  static final int NEVER_REACHED_PER_MINUTE = 1_000_000_000;
  /** Far above the few workers of the overhead run. */
  static final int NEVER_REACHED_CONCURRENCY = 10_000;

  /**
   * @throws IllegalArgumentException naming the key, the value and the choices
   */
  static OverheadPeer of(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          KEY + "=" + value + " is not one of "
              + Arrays.stream(values())
                  .map(p -> p.name().toLowerCase(Locale.ROOT))
                  .collect(Collectors.joining("|")),
          e);
    }
  }

  /** Installs the peer; call inside {@code Javalin.create}, before the routes. */
  void install(JavalinConfig config) {
    switch (this) {
      case NONE -> {}
      case RATELIMITPLUGIN -> {
        config.registerPlugin(new RateLimitPlugin());
        config.routes.before(
            PATH,
            ctx -> ctx.with(RateLimitPlugin.class)
                .requestPerTimeUnit(NEVER_REACHED_PER_MINUTE, TimeUnit.MINUTES));
      }
      case QOS -> {
        QoSHandler qos = new QoSHandler();
        qos.setMaxRequestCount(NEVER_REACHED_CONCURRENCY);
        config.jetty.modifyServer(server -> server.insertHandler(qos));
      }
      case HANDLERS -> {
        config.routes.before(ctx -> {});
        config.routes.beforeMatched(ctx -> {});
        config.routes.after(ctx -> {});
      }
    }
  }
}
