package com.example;

import dev.sluice.javalin.SluicePlugin;
import dev.sluice.config.SluiceProperties;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The first app with its limits shared by every node through Redis: the same code, the properties
 * say {@code scope=global} and where Redis is.
 */
public final class App {

  public static void main(String[] args) {
    // application.properties in the jar, overridden by -Dsluice.* / SLUICE_* (and PORT)
    SluiceProperties props = SluiceProperties.builder()
        .defaults(App.class.getResource("/application.properties"))
        .applicationKeys("server.")
        .envAlias("PORT", "server.port")
        .build();
    int port = Integer.parseInt(props.get("server.port").orElse("7070"));
    create(props).start(port);
  }

  public static Javalin create(SluiceProperties props) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SluicePlugin sluice = new SluicePlugin(cfg -> cfg.properties(props).meterRegistry(registry));
    return Javalin.create(config -> {
      config.registerPlugin(sluice); // first: Sluice is the first filter
      config.routes.post("/api/transcode", ctx -> {
        long millis = ctx.queryParamAsClass("millis", Long.class).getOrDefault(1000L);
        ctx.result(transcode(ctx.body(), millis));
      });
      config.routes.get("/api/hello", ctx -> ctx.result("hello\n")); // the rate rule's endpoint
      config.routes.get("/health", ctx -> ctx.result("up")); // never limited
      config.routes.get("/sluice", ctx -> ctx.contentType("application/json").result(sluice.statusJson()));
      config.routes.get("/metrics", ctx -> ctx.result(registry.scrape()));
    });
  }

  /** Stands in for the real work: a job that takes {@code millis} milliseconds. */
  private static String transcode(String video, long millis) throws InterruptedException {
    Thread.sleep(millis);
    return "transcoded " + video.length() + " bytes in " + millis + " ms\n";
  }
}
