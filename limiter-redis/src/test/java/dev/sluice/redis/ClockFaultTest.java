package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.testing.RateHistory;
import dev.sluice.testing.RateHistory.Decision;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A node whose clocks are wrong, in a JVM of its own under libfaketime, decides a global token
 * bucket beside a node with a true clock, on one redis-server: Redis {@code TIME} decides, so the
 * joint history, timed on this JVM's clock, keeps the rule's exact bound with no allowance, and
 * no refusal comes while the bucket had room.
 *
 * <p>libfaketime 0.9.10 fakes {@code CLOCK_MONOTONIC} as well unless {@code
 * FAKETIME_DONT_FAKE_MONOTONIC=1}: so the faults below are the wall clock alone ({@code
 * System.currentTimeMillis}), and then both clocks ({@code System.nanoTime} too, which the local
 * shares and the call timeouts read). Settings the JVM needs (measured on JDK 17 and 25): with the
 * monotonic clock left alone, glibc's monotonic fix, on by default, makes every timed wait on a
 * monotonic condition variable ({@code Object.wait}, {@code LockSupport.parkNanos}) return at once
 * (correct, as a spurious wake-up, but the JVM spins), so the wall-clock cases turn it off ({@code
 * FAKETIME_FORCE_MONOTONIC_FIX=0}). A skewed wall clock alone cannot be run: with the fix off a
 * timed wait never returns (the JVM hangs in its first {@code Object.wait(1000)}); with it on the
 * spinning JVM took 56 s to answer once on a busy machine, and not within 60 s the next time. So
 * the skew is tested with both clocks faked, where the wall clock runs fast too.
 */
@Tag("integration")
class ClockFaultTest {

  private static final long LIMIT = 20;
  private static final Duration PERIOD = Duration.ofSeconds(1);
  private static final long BURST = 5;
  /** Generous, so that no decision degrades on a loaded machine: every one must be Redis's. */
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  /** Long enough for a 5% skew to show over the answer times of a busy machine. */
  private static final Duration RUN = Duration.ofSeconds(4);
  /** How long any answer of the child may take: its JVM starts on a busy machine. */
  private static final Duration ANSWER = Duration.ofSeconds(60);

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  @TempDir
  Path dir;

  private Nodes nodes;
  private Process child;
  private File log;

  /** The clock faults: libfaketime's {@code FAKETIME}, and whether the monotonic clock is faked. */
  enum ClockFault {
    WALL_STEPPED_AHEAD_AN_HOUR("+1h", false, Duration.ofHours(1), 1.0),
    WALL_STEPPED_BACK_A_DAY("-1d", false, Duration.ofDays(-1), 1.0),
    BOTH_CLOCKS_STEPPED_BACK_A_DAY("-1d", true, Duration.ofDays(-1), 1.0),
    BOTH_CLOCKS_FIVE_PERCENT_FAST("+0 x1.05", true, Duration.ZERO, 1.05);

    final String faketime;
    final boolean monotonicFaked;
    final Duration step;
    final double rate;

    ClockFault(String faketime, boolean monotonicFaked, Duration step, double rate) {
      this.faketime = faketime;
      this.monotonicFaked = monotonicFaked;
      this.step = step;
      this.rate = rate;
    }
  }

  @BeforeAll
  static void requireFaketime() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, "faketime"))) {
        return;
      }
    }
    fail("faketime is not on PATH: the clock fault tests of limiter-redis run a node under it "
        + "(apt-get install faketime)");
  }

  @BeforeEach
  void open() {
    nodes = new Nodes();
  }

  @AfterEach
  void close() {
    if (child != null) {
      // faketime runs the JVM as its own child, not in its place
      child.descendants().forEach(ProcessHandle::destroyForcibly);
      child.destroyForcibly();
    }
    nodes.close();
  }

  @ParameterizedTest
  @EnumSource(ClockFault.class)
  void aNodeWithAWrongClockDecidesAGlobalBucketExactlyAsRedisTimeSays(ClockFault fault)
      throws Exception {
    String rule = "clock-" + UUID.randomUUID();
    RateRequest request = new RateRequest(
        rule, "actor", Algorithm.TOKEN_BUCKET, RateLimit.of(LIMIT, PERIOD).withBurst(BURST), 1);
    RedisStores normal = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 2, FailurePolicy.DENY, NanoClock.system()),
        Scheduler.system());
    Child faked = start(fault, rule);
    try {
      faked.clocks(); // its first answer: the JVM has started and is connected
      long[] before = faked.clocks();
      long from = System.nanoTime();
      List<Decision> history = Collections.synchronizedList(new ArrayList<>());
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        Future<Long> fakedAdmitted = threads.submit(() -> {
          long admitted = 0;
          while (System.nanoTime() - from < RUN.toNanos()) {
            long asked = System.nanoTime();
            boolean allowed = faked.decide();
            history.add(new Decision("actor", asked, System.nanoTime(), allowed, 1));
            admitted += allowed ? 1 : 0;
          }
          return admitted;
        });
        Future<Long> normalAdmitted = threads.submit(() -> {
          long admitted = 0;
          while (System.nanoTime() - from < RUN.toNanos()) {
            long asked = System.nanoTime();
            boolean allowed =
                Nodes.decide(normal, request, TIMEOUT.multipliedBy(2)).allowed();
            history.add(new Decision("actor", asked, System.nanoTime(), allowed, 1));
            admitted += allowed ? 1 : 0;
          }
          return admitted;
        });
        long fakedCount = fakedAdmitted.get(ANSWER.toSeconds() + RUN.toSeconds(), TimeUnit.SECONDS);
        long normalCount =
            normalAdmitted.get(ANSWER.toSeconds() + RUN.toSeconds(), TimeUnit.SECONDS);
        long[] after = faked.clocks();

        RateHistory.Report report =
            RateHistory.checkBucket(history, LIMIT, PERIOD, BURST, List.of(), 1.0);
        System.out.printf(
            "%s: %d admitted on the faked node, %d on the normal one; %s%n",
            fault, fakedCount, normalCount, report.summary());
        assertThat(report.withinBound()).as(report.summary()).isTrue();
        assertThat(report.underAdmissions()).as(report.summary()).isEmpty();
        assertThat(fakedCount).as("the faked node decided").isPositive();
        assertThat(normalCount).as("the normal node decided").isPositive();
        assertThat(faked.degradedDecisions()).as("decisions not made by Redis").isZero();
        assertThat(normal.degradedDecisions()).as("decisions not made by Redis").isZero();
        faked.assertClocksAre(fault, before, after);
      } finally {
        threads.shutdownNow();
      }
    } catch (AssertionError | RuntimeException e) {
      System.out.println("faked node's output:\n" + Files.readString(log.toPath()));
      throw e;
    }
  }

  private Child start(ClockFault fault, String rule) throws IOException {
    log = dir.resolve("node.log").toFile();
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder builder = new ProcessBuilder(
            "faketime",
            "-f",
            fault.faketime,
            java,
            "-cp",
            System.getProperty("java.class.path"),
            ClockedNode.class.getName(),
            REDIS.server().uri().toString(),
            rule,
            Long.toString(LIMIT),
            Long.toString(PERIOD.toMillis()),
            Long.toString(BURST),
            Long.toString(TIMEOUT.toMillis()))
        .redirectError(log);
    if (!fault.monotonicFaked) {
      builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
      builder.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }
    child = builder.start();
    return new Child(child);
  }

  /** The child's side of {@link ClockedNode}'s line protocol; every answer waited for in bounds. */
  private final class Child {
    private final Writer in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    Child(Process process) {
      in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> read(process), "clocked-node-output");
      reader.setDaemon(true);
      reader.start();
    }

    private void read(Process process) {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.startsWith(ClockedNode.PREFIX)) {
            answers.add(line.substring(ClockedNode.PREFIX.length()));
          } else {
            Files.writeString(log.toPath(), line + "\n", java.nio.file.StandardOpenOption.APPEND);
          }
        }
      } catch (IOException e) {
        answers.add("output closed: " + e);
      }
    }

    private String ask(String command) throws Exception {
      in.write(command + "\n");
      in.flush();
      String answer = answers.poll(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
      if (answer == null) {
        throw new AssertionError("the faked node did not answer '" + command + "' within " + ANSWER
            + (child.isAlive() ? "" : " (it ended: " + child.exitValue() + ")"));
      }
      return answer;
    }

    boolean decide() throws Exception {
      String answer = ask("d");
      assertThat(answer).as("a decision").isIn("0", "1");
      return answer.equals("1");
    }

    /** This JVM's nanoTime before asking, the child's wall ms and nanoTime, this JVM's after. */
    long[] clocks() throws Exception {
      long asked = System.nanoTime();
      long wallHere = System.currentTimeMillis();
      String[] answer = ask("c").split(" ");
      return new long[] {
        asked, Long.parseLong(answer[0]), Long.parseLong(answer[1]), System.nanoTime(), wallHere
      };
    }

    long degradedDecisions() throws Exception {
      return Long.parseLong(ask("q"));
    }

    /**
     * The fault was really there: the child's wall clock stood where {@code FAKETIME} put it and
     * ran at its rate, and its monotonic clock ran at that rate only when it was faked too.
     */
    void assertClocksAre(ClockFault fault, long[] before, long[] after) {
      long offset = before[1] - before[4];
      assertThat(offset)
          .as("the faked node's wall clock minus ours, ms")
          .isBetween(fault.step.toMillis() - 60_000, fault.step.toMillis() + 60_000);
      // the child read its clocks within each span [asked, answered] of ours
      double shortest = (after[0] - before[3]) / 1e6;
      double longest = (after[3] - before[0]) / 1e6;
      double wall = after[1] - before[1];
      double mono = (after[2] - before[2]) / 1e6;
      double monoRate = fault.monotonicFaked ? fault.rate : 1.0;
      System.out.printf(
          "%s: our clock %.0f-%.0f ms, the faked node's wall clock %.0f ms, its nanoTime %.0f ms%n",
          fault, shortest, longest, wall, mono);
      // +-2: the wall clock is read in whole ms
      assertThat(wall)
          .as("faked wall ms")
          .isBetween(shortest * fault.rate - 2, longest * fault.rate + 2);
      assertThat(mono).as("faked nanoTime ms").isBetween(shortest * monoRate, longest * monoRate);
    }
  }
}
