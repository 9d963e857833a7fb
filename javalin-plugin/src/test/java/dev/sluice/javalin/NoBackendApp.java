package dev.sluice.javalin;

import io.javalin.Javalin;

/**
 * A plain application on a class path without an SLF4J backend, run in a child JVM by {@link
 * NoBackendTest}: it starts with the settings given as {@code -D} and stops at once.
 */
public final class NoBackendApp {

  private NoBackendApp() {}

  public static void main(String[] args) {
    SluicePlugin sluice = new SluicePlugin();
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(sluice);
      config.routes.post("/api/work", ctx -> ctx.result("done"));
    });
    app.start("127.0.0.1", 0);
    System.out.println("STARTED");
    app.stop();
  }
}
