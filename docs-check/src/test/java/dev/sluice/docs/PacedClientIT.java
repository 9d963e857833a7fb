package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The paced-client example, run from its own build's jar: every record stored, at most a few sends refused (and retried). */
class PacedClientIT {

  @Test
  void thePacedClientIsNeverRefused() throws Exception {
    Path dir = Path.of(System.getProperty("examples.dir"), "paced-client");
    Process process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            dir.resolve("target/paced-client.jar").toString())
        .redirectErrorStream(true)
        .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("paced client, answers by status: {200=60}")
        .contains("pace learnt: 20 per second")
        .containsPattern("naive client, answers by status: \\{200=\\d+, 429=\\d+\\}");
    // its sends are spaced at the service's pace; a late timer on a busy machine may put one more
    // into a second of the service's window, which is then retried
    Matcher refused = Pattern.compile("the service refused (\\d+) sends").matcher(output);
    assertThat(refused.find()).as(output).isTrue();
    assertThat(Integer.parseInt(refused.group(1))).as(output).isLessThanOrEqualTo(3);
  }
}
