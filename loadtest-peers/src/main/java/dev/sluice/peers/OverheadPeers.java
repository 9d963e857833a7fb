package dev.sluice.peers;

import dev.sluice.demo.Peer;
import io.javalin.config.JavalinConfig;
import io.javalin.plugin.bundled.RateLimitPlugin;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.handler.QoSHandler;

/**
 * {@code demo.overhead-peer}: the limiter another project would put in front of {@link #PATH}, so
 * the load test's overhead run can compare Sluice's cost with its peers' on the same light endpoint.
 * Each peer is set so high it never rejects: what is measured is the cost of asking, not of
 * refusing.
 *
 * <ul>
 *   <li>{@code ratelimitplugin}: Javalin's bundled {@code RateLimitPlugin}, a fixed window per IP,
 *       method and path.
 *   <li>{@code qos}: Jetty 12's {@code QoSHandler} in front of the whole server (it runs before
 *       routing).
 *   <li>{@code handlers}: not a limiter, three empty handlers where a limiting plugin hooks in
 *       (before, before-matched, after, on every path), so the run shows what Javalin itself
 *       spends on any plugin's handlers.
 * </ul>
 */
public final class OverheadPeers implements Peer {

  static final String KEY = "demo.overhead-peer";
  /** The demo's light endpoint; it answers a constant. */
  static final String PATH = "/api/ping";
  /** Far above what two cores serve in a minute. */
  static final int NEVER_REACHED_PER_MINUTE = 1_000_000_000;
  /** Far above the few workers of the overhead run. */
  static final int NEVER_REACHED_CONCURRENCY = 10_000;

  @Override
  public String key() {
    return KEY;
  }

  @Override
  public List<String> ids() {
    return List.of("ratelimitplugin", "qos", "handlers");
  }

  @Override
  public UnaryOperator<String> install(
      String id, JavalinConfig config, Function<String, Optional<String>> settings, int cores) {
    switch (id) {
      case "ratelimitplugin" -> {
        config.registerPlugin(new RateLimitPlugin());
        config.routes.before(
            PATH,
            ctx -> ctx.with(RateLimitPlugin.class)
                .requestPerTimeUnit(NEVER_REACHED_PER_MINUTE, TimeUnit.MINUTES));
      }
      case "qos" -> {
        QoSHandler qos = new QoSHandler();
        qos.setMaxRequestCount(NEVER_REACHED_CONCURRENCY);
        config.jetty.modifyServer(server -> server.insertHandler(qos));
      }
      case "handlers" -> {
        config.routes.before(ctx -> {});
        config.routes.beforeMatched(ctx -> {});
        config.routes.after(ctx -> {});
      }
      default -> throw new IllegalArgumentException(KEY + "=" + id + " is not one of " + ids());
    }
    return status -> status;
  }
}
