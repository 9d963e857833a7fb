package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Children of the load test do not outlive it when it is stopped. */
class ChildProcessesTest {

  /** A load test stand-in: starts a long child through the registry, prints its pid, waits. */
  public static final class Parent {
    public static void main(String[] args) throws Exception {
      Process child = ChildProcesses.stopWithThisJvm(new ProcessBuilder("sleep", "600").start());
      System.out.println(child.pid());
      System.out.flush();
      new CountDownLatch(1).await(); // a run in progress, never done: the test stops this JVM
    }
  }

  @Test
  void aParentStoppedWithSigtermTakesItsChildrenWithIt() throws Exception {
    Process parent = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            Parent.class.getName())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    long childPid;
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
      childPid = Long.parseLong(out.readLine().trim());
    }
    Optional<ProcessHandle> child = ProcessHandle.of(childPid);
    assertThat(child)
        .as("the child runs")
        .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());

    parent.destroy(); // SIGTERM, as Ctrl-C's cousin or a CI runner's stop sends
    assertThat(parent.waitFor(30, TimeUnit.SECONDS)).as("the parent ends").isTrue();

    // a child already gone is absent; one still there must end within seconds
    ProcessHandle.of(childPid)
        .ifPresent(h -> assertThat(h.onExit())
            .as("child " + childPid + " ends after its parent was stopped")
            .succeedsWithin(10, TimeUnit.SECONDS));
  }

  @Test
  void aChildThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    Process stubborn = ChildProcesses.stopWithThisJvm(new ProcessBuilder(
            List.of("sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"))
        .start());
    Process polite = ChildProcesses.stopWithThisJvm(new ProcessBuilder("sleep", "600").start());
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(stubborn.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("ready"); // the trap is set
    }
    assertThat(ChildProcesses.running()).isGreaterThanOrEqualTo(2);

    ChildProcesses.stopAll(TimeUnit.MILLISECONDS.toNanos(300));

    assertThat(polite.waitFor(10, TimeUnit.SECONDS)).as("stopped by SIGTERM").isTrue();
    assertThat(stubborn.waitFor(10, TimeUnit.SECONDS))
        .as("killed after the grace")
        .isTrue();
    assertThat(ChildProcesses.running()).isZero();
  }
}
