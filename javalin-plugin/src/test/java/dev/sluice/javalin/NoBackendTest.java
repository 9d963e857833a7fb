package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Without an SLF4J backend Sluice's warnings still reach the operator on stderr, once per kind, and
 * a configuration error prints as one line: checked in a child JVM whose class path lacks the
 * backend the tests use (logback), and on an injected stream in this one.
 */
class NoBackendTest {

  @TempDir
  Path dir;

  private record Run(int exit, String stdout, List<String> stderr) {}

  /** Runs {@link NoBackendApp} on the test class path less logback, with these -D settings. */
  private Run runWithoutBackend(String... systemProperties)
      throws IOException, InterruptedException {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String withoutBackend = Arrays.stream(classPath.split(File.pathSeparator))
        .filter(entry -> !entry.contains("logback"))
        .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(withoutBackend);
    command.addAll(Arrays.asList(systemProperties));
    command.add(NoBackendApp.class.getName());
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process process = new ProcessBuilder(command)
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("child JVM ended").isTrue();
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readAllLines(err, StandardCharsets.UTF_8));
  }

  @Tag("integration")
  @Test
  void lenientAMisspeltKeyReachesStderrWithHowToRouteIt() throws Exception {
    Run run = runWithoutBackend(
        "-Dsluice.strict=false",
        "-Dsluice.limiters.work.path=/api/work",
        "-Dsluice.limiters.work.max-concurency=3",
        "-Dsluice.limiters.wrk.path=/api/wrk");

    assertThat(run.exit()).isZero();
    assertThat(run.stdout()).contains("STARTED");
    assertThat(run.stderr()).containsOnlyOnce(Warnings.NO_BACKEND);
    assertThat(run.stderr())
        .anySatisfy(line -> assertThat(line)
            .startsWith("Sluice WARN sluice.limiters.work.max-concurency='3'")
            .contains("from system property -Dsluice.limiters.work.max-concurency")
            .contains("did you mean 'sluice.limiters.work.max-concurrency'?"));
    assertThat(run.stderr())
        .anySatisfy(line -> assertThat(line)
            .startsWith("Sluice WARN sluice.limiters.wrk.path='/api/wrk'")
            .contains("did you mean /api/work?"));
  }

  @Tag("integration")
  @Test
  void aRefusedReloadReachesStderr() throws Exception {
    Path properties = dir.resolve("sluice.properties");
    Files.writeString(properties, """
        sluice.reload-interval=100ms
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.max-queue=4
        """);

    Run run = runWithoutBackend("-Dapp.properties=" + properties);

    assertThat(run.exit()).isZero();
    assertThat(run.stdout()).contains("STARTED").contains("REFUSED").doesNotContain("NOT REFUSED");
    assertThat(run.stderr()).containsOnlyOnce(Warnings.NO_BACKEND);
    assertThat(run.stderr())
        .anySatisfy(line -> assertThat(line)
            .startsWith("Sluice WARN Reloaded Sluice properties rejected, previous limits stay:")
            .contains("sluice.limiters.work.max-queue='lots' (from file " + properties + ")"));
  }

  @Tag("integration")
  @Test
  void aConfigurationErrorIsOneLineWithoutAStackTrace() throws Exception {
    Run run = runWithoutBackend(
        "-Dsluice.limiters.work.path=/api/work", "-Dsluice.limiters.work.max-queue=lots");

    assertThat(run.exit()).isNotZero();
    int at = -1;
    for (int i = 0; i < run.stderr().size(); i++) {
      if (run.stderr().get(i).startsWith("Exception in thread")) {
        at = i;
      }
    }
    assertThat(at).as("the uncaught exception in %s", run.stderr()).isNotNegative();
    assertThat(run.stderr().get(at))
        .isEqualTo("Exception in thread \"main\" dev.sluice.config.SluiceConfigException:"
            + " sluice.limiters.work.max-queue='lots' (from system property"
            + " -Dsluice.limiters.work.max-queue): not a whole number; allowed: >= 0");
    assertThat(run.stderr().subList(at + 1, run.stderr().size())).isEmpty();
  }

  @Test
  void withoutABackendEachKindIsWrittenOnceAfterOneLineOnHowToRouteThem() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Warnings warnings = new Warnings(LoggerFactory.getLogger(NoBackendTest.class), err);

    warnings.warn("properties refused", "Reloaded Sluice properties rejected: first");
    warnings.warn("properties refused", "Reloaded Sluice properties rejected: second");
    warnings.warn("rate rules", "store down", new IllegalStateException("boom"));

    assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
        .containsExactly(
            Warnings.NO_BACKEND,
            "Sluice WARN Reloaded Sluice properties rejected: first",
            "Sluice WARN store down");
  }

  @Test
  void aBoundBackendIsDetected() {
    // logback is on this class path: the warnings go to it alone
    assertThat(Warnings.backendBound()).isTrue();
  }
}
