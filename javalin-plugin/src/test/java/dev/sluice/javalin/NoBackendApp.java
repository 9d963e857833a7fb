package dev.sluice.javalin;

import dev.sluice.config.SluiceProperties;
import io.javalin.Javalin;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A plain application on a class path without an SLF4J backend, run in a child JVM by {@link
 * NoBackendTest}: it starts with the settings given as {@code -D} and stops at once. Given a
 * properties file ({@code -Dapp.properties=FILE}, with {@code sluice.reload-interval} in it), it
 * first rewrites the file with a bad value and waits until the refused reload has been reported on
 * stderr.
 */
public final class NoBackendApp {

  private NoBackendApp() {}

  public static void main(String[] args) throws Exception {
    String file = System.getProperty("app.properties");
    CountDownLatch refused = new CountDownLatch(1);
    if (file != null) {
      PrintStream stderr = System.err;
      System.setErr(new PrintStream(
          new OutputStream() {
            private final StringBuilder line = new StringBuilder();

            @Override
            public void write(int b) {
              stderr.write(b);
              if (b == '\n') {
                if (line.indexOf("properties rejected") >= 0) {
                  refused.countDown();
                }
                line.setLength(0);
              } else {
                line.append((char) b);
              }
            }
          },
          true,
          StandardCharsets.UTF_8));
    }
    SluicePlugin sluice = file == null
        ? new SluicePlugin()
        : new SluicePlugin(cfg -> cfg.properties(SluiceProperties.load(Path.of(file))));
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(sluice);
      config.routes.post("/api/work", ctx -> ctx.result("done"));
    });
    app.start("127.0.0.1", 0);
    System.out.println("STARTED");
    if (file != null) {
      Files.writeString(
          Path.of(file), Files.readString(Path.of(file)) + "sluice.limiters.work.max-queue=lots\n");
      System.out.println(refused.await(20, TimeUnit.SECONDS) ? "REFUSED" : "NOT REFUSED");
    }
    app.stop();
  }
}
