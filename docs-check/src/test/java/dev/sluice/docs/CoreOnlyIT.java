package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The core-only example, run from the jar its own build made, prints what its README shows. */
class CoreOnlyIT {

  @Test
  void printsWhatItsReadmeShows() throws Exception {
    Path dir = Path.of(System.getProperty("examples.dir"), "core-only");
    Process process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            dir.resolve("target/core-only.jar").toString())
        .redirectErrorStream(true)
        .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();

    String readme = Files.readString(dir.resolve("README.md"));
    int start = readme.indexOf("```\njob 1") + 4;
    String shown = readme.substring(start, readme.indexOf("```", start));
    assertThat(output.strip()).isEqualTo(shown.strip());
  }
}
