package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice.reload-interval}: the properties file polled on the scheduler given to {@link
 * SluiceConfig#scheduler}, here a virtual one, so each poll happens exactly when time is advanced.
 */
@Tag("integration")
class PropertiesReloadTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final String KEY = "sluice.limiters.work.max-concurrency";

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();

  @RegisterExtension
  final LogCapture log = new LogCapture(SluicePlugin.class);

  private Path file;
  private TestServer server;

  @BeforeEach
  void start() throws IOException {
    file = dir.resolve("sluice.properties");
    write("1");
    SluiceProperties props =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void write(String maxConcurrency) throws IOException {
    Files.writeString(
        file,
        "sluice.reload-interval=" + INTERVAL.toSeconds() + "s\n"
            + "sluice.limiters.work.path=/api/work\n" + KEY + "=" + maxConcurrency + "\n");
  }

  private int limit() {
    return server.plugin.limiter("work").orElseThrow().snapshot().limit();
  }

  private long warnings() {
    return log.events().stream().filter(e -> e.getLevel() == Level.WARN).count();
  }

  @Test
  void aChangedFileIsAppliedAfterOneInterval() throws IOException {
    FileTime stamp = Files.getLastModifiedTime(file);
    write("4");
    // same size, same stamp: a rewrite a coarse file-system clock cannot see is still found
    Files.setLastModifiedTime(file, stamp);

    time.advance(INTERVAL.minusNanos(1));
    assertThat(limit()).as("before the first poll").isEqualTo(1);
    time.advance(Duration.ofNanos(1));
    assertThat(limit()).isEqualTo(4);

    write("6");
    time.advance(INTERVAL);
    assertThat(limit()).as("polling goes on").isEqualTo(6);
    assertThat(warnings()).isZero();
  }

  @Test
  void aBadFileKeepsThePreviousLimitsAndIsWarnedAboutOnceNamingKeyValueAndFile()
      throws IOException {
    write("zero");
    time.advance(INTERVAL);

    assertThat(limit()).isEqualTo(1);
    assertThat(log.events())
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage())
            .contains("previous limits stay")
            .contains(KEY + "='zero'")
            .contains("from file " + file));

    time.advance(INTERVAL.multipliedBy(3));
    assertThat(warnings()).as("the same bad version is reported once").isEqualTo(1);

    write("3");
    time.advance(INTERVAL);
    assertThat(limit()).as("a good version after a bad one applies").isEqualTo(3);
  }

  @Test
  void aFileThatCannotBeReadKeepsThePreviousLimitsAndPollingGoesOn() throws IOException {
    Files.delete(file);
    time.advance(INTERVAL.multipliedBy(2));

    assertThat(limit()).isEqualTo(1);
    assertThat(log.events())
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains(file.toString()));

    write("2");
    time.advance(INTERVAL);
    assertThat(limit()).isEqualTo(2);
  }

  @Test
  void stoppingTheServerEndsThePolling() {
    assertThat(time.pendingTasks()).isEqualTo(1);
    server.close();
    server = null;
    assertThat(time.pendingTasks()).isZero();
  }
}
