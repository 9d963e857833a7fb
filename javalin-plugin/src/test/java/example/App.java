package example;

import dev.sluice.javalin.SluicePlugin;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

public final class App {

  public static void main(String[] args) {
    int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "7070"));
    create().start(port);
  }

  /** Two transcodes at once, 16 more may wait (504 after 60 s); beyond that 429 at once. */
  public static Javalin create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SluicePlugin sluice = new SluicePlugin(cfg -> cfg  // also reads SLUICE_* env vars and -Dsluice.*
        .limiter("transcode", l -> l.path("/api/transcode").maxConcurrency(2).maxQueue(16))
        .meterRegistry(registry));
    return Javalin.create(config -> {
      config.registerPlugin(sluice);                          // first: Sluice is the first filter
      config.routes.post("/api/transcode", ctx -> ctx.result(transcode(ctx.body())));
      config.routes.get("/health", ctx -> ctx.result("up"));  // never limited
      config.routes.get("/sluice", ctx -> ctx.contentType("application/json")
          .result(sluice.statusJson()));                      // JSON without Jackson
      config.routes.get("/metrics", ctx -> ctx.result(registry.scrape()));
    });
  }

  private static String transcode(String video) {
    return Integer.toHexString(video.hashCode()); // stands in for the real, CPU-heavy work
  }
}
