package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The live page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * which {@code .ci/run} installs): it renders, shows every limiter and rule, and its numbers follow
 * the load. Skipped, loudly, without the binaries; a failure when {@code CI=true}.
 */
@Tag("integration")
class DashboardBrowserTest {

  static final String CHROMIUM = "/usr/bin/chromium";
  static final String DRIVER = "/usr/bin/chromedriver";

  @TempDir
  Path profile;

  @Test
  void thePageShowsEveryLimiterAndItsNumbersFollowTheLoad() throws Exception {
    requireChromium();
    CountDownLatch release = new CountDownLatch(1);
    var rules = DashboardTest.historyRule();
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.dashboard.path", "/sluice/dashboard", "sluice.redis.uri", "memory://dashboard"))
        .build(); // a shared store to show
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props)
            .limiter(
                "transcode", l -> l.path("/api/transcode").maxConcurrency(2).maxQueue(8))
            .limiter("rescue", l -> l.maxConcurrency(1))
            .rules(rules),
        (app, plugin) -> {
          app.routes.get("/api/transcode", ctx -> {
            release.await(20, TimeUnit.SECONDS);
            ctx.result("done");
          });
          app.routes.get("/api/rescue", plugin.limited("rescue", ctx -> ctx.result("ok")));
          app.routes.get("/api/history/{id}", ctx -> ctx.result("h"));
        })) {
      WebDriver browser = chromium();
      try {
        browser.get(server.base + "/sluice/dashboard");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(b -> b.findElements(By.cssSelector("section.limiter")).size() == 2);
        assertThat(browser.findElements(By.cssSelector("section.limiter")))
            .extracting(e -> e.getAttribute("data-limiter"))
            .containsExactly("transcode", "rescue");
        assertThat(field(browser, "transcode", "inFlight")).isEqualTo("0 / 2");
        assertThat(browser.findElement(By.id("status")).getText()).startsWith("updated");
        assertThat(browser.findElement(By.id("store")).getText()).isEqualTo("store up");

        List<CompletableFuture<?>> load = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          load.add(server.getAsync("/api/transcode"));
        }
        for (int i = 0; i < 3; i++) {
          server.get("/api/history/1", "X-Account-Id", "alice");
        }
        // the page polls every second: it must show the load without a reload
        wait.until(b -> field(b, "transcode", "inFlight").equals("2 / 2")
            && field(b, "transcode", "queued").equals("3 / 8"));
        wait.until(b -> b.findElement(By.cssSelector("tr[data-rule=history] [data-field=rejected]"))
            .getText()
            .equals("1"));
        Files.createDirectories(Path.of("target"));
        Files.write(
            Path.of("target", "dashboard.png"),
            ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));

        release.countDown();
        load.forEach(CompletableFuture::join);
        wait.until(b -> field(b, "transcode", "admitted").equals("5")
            && field(b, "transcode", "inFlight").equals("0 / 2"));
        assertThat(field(browser, "transcode", "queueWaitP99"))
            .endsWith("s"); // "123 ms" or "1.2 s"
      } finally {
        release.countDown();
        browser.quit();
      }
    }
  }

  /**
   * Opened during an incident: the page draws the minutes the service kept (not only what it
   * polled since it opened), the machine's CPU with this service's own share beside it, and says
   * that requests above a limit which dropped below them are draining. Virtual time: the history
   * was sampled before the browser started.
   */
  @Test
  void aPageOpenedNowDrawsThePastAndSaysWhatIsDraining() throws Exception {
    requireChromium();
    VirtualTime time = new VirtualTime();
    CompletableFuture<String> gate = new CompletableFuture<>();
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.dashboard.path", "/sluice/dashboard",
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "2"))
        .build();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props)
            .clock(time)
            .scheduler(time)
            .cpuSignals(busy(time, 0.9), busy(time, 0.1)), // a busy neighbour, a quiet service
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.future(() -> gate)))) {
      List<CompletableFuture<?>> running =
          List.of(server.getAsync("/api/work"), server.getAsync("/api/work"));
      ConcurrencyLimiter limiter = server.plugin.limiter("work").orElseThrow();
      Awaitility.await().until(() -> limiter.snapshot().inFlight() == 2);
      time.advance(Duration.ofSeconds(90));
      limiter.reconfigure(
          LimiterSpec.from(limiter.snapshot().spec()).maxConcurrency(1).build());
      time.advance(Duration.ofSeconds(1));

      WebDriver browser = chromium();
      try {
        browser.get(server.base + "/sluice/dashboard");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(b -> b.findElements(By.cssSelector("section.limiter canvas[data-points]"))
                .size()
            == 1);
        WebElement chart = browser.findElement(By.cssSelector("section[data-limiter=work] canvas"));
        // the first poll already draws the 91 points the service kept, 90 s of them
        assertThat(chart.getAttribute("data-points")).isEqualTo("91");
        assertThat(chart.getAttribute("data-span-seconds")).isEqualTo("90");
        assertThat(field(browser, "work", "draining"))
            .isEqualTo(
                "2 in flight, limit 1: 1 draining (no new request starts until they finish)");
        assertThat(browser.findElement(By.id("cpu")).getText())
            .isEqualTo("CPU: machine 90% · this service 10%");
        Files.createDirectories(Path.of("target"));
        Files.write(
            Path.of("target", "dashboard-history.png"),
            ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
      } finally {
        browser.quit();
        gate.complete("done");
        running.forEach(CompletableFuture::join);
      }
    }
  }

  /** A CPU signal busy at a fixed share, integrated over virtual time. */
  private static CpuSignal busy(VirtualTime time, double share) {
    long origin = time.nanoTime();
    return () -> {
      long elapsed = time.nanoTime() - origin;
      return new CpuSignal.Reading(share * elapsed, elapsed);
    };
  }

  private static String field(WebDriver browser, String limiter, String name) {
    WebElement card = browser.findElement(By.cssSelector("section[data-limiter=" + limiter + "]"));
    return card.findElement(By.cssSelector("[data-field=" + name + "]")).getText();
  }

  private WebDriver chromium() throws IOException {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        "--user-data-dir=" + Files.createDirectories(profile.resolve("chromium")));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(DRIVER))
        .usingAnyFreePort()
        .build();
    return new ChromeDriver(service, options);
  }

  static void requireChromium() {
    if (Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(DRIVER))) {
      return;
    }
    String message = CHROMIUM + " or " + DRIVER + " is missing: the live page's browser test needs"
        + " them (apt-get install chromium chromium-driver)";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail(message + " and CI=true, so this is a failure, not a skip");
    }
    System.err.println("!!!!!!!!!! SKIPPED: " + message + " !!!!!!!!!!");
    Assumptions.assumeTrue(false, message);
  }
}
