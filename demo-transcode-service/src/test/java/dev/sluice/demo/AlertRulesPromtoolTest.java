package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Prometheus's own checker accepts ops/prometheus/sluice-alerts.yml (syntax, PromQL, templates).
 * promtool comes from Debian's prometheus package ({@code .ci/run} unpacks it when absent); in CI a
 * missing promtool fails this test, on a developer's machine it skips it.
 */
class AlertRulesPromtoolTest {

  private static final Path RULES = Path.of("..", "ops", "prometheus", "sluice-alerts.yml");

  @Test
  void promtoolAcceptsTheAlertRules() throws Exception {
    Path promtool = onPath("promtool");
    if (promtool == null) {
      assertThat(System.getenv("CI")).as("promtool on PATH (CI installs it)").isNull();
      Assumptions.abort("promtool not on PATH: apt-get install prometheus");
    }
    Process check = new ProcessBuilder(promtool.toString(), "check", "rules", RULES.toString())
        .redirectErrorStream(true)
        .start();
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.exitValue()).as(output).isZero();
    assertThat(output).contains("SUCCESS");
  }

  private static Path onPath(String binary) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, binary);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
