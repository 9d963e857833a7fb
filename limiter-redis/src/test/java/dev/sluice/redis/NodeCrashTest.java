package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.store.FailurePolicy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node killed with {@code kill -9} (a real JVM, {@link Process#destroyForcibly()}) while it holds
 * leases: with the default lease time its permits go to the waiters of the surviving node within
 * seconds, and the cluster is back at its full limit.
 */
@Tag("integration")
class NodeCrashTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  @TempDir
  Path dir;

  private Nodes nodes;
  private String name;

  @BeforeEach
  void open() {
    nodes = new Nodes();
    name = "crash-" + UUID.randomUUID();
  }

  @AfterEach
  void close() {
    nodes.close();
  }

  private Process holder(int max, int hold, File log) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            LeaseHolder.class.getName(),
            REDIS.server().uri().toString(),
            name,
            Integer.toString(max),
            Integer.toString(hold))
        .redirectErrorStream(true)
        .redirectOutput(log)
        .start();
  }

  private String count(String key) {
    return REDIS.server().command("ZCARD", key);
  }

  @Test
  void theLeasesOfAKilledNodeGoToTheWaitersOfAnotherNodeWithinSeconds() throws Exception {
    File log = dir.resolve("holder.log").toFile();
    Process holder = holder(4, 2, log);
    ConcurrencyLimiter survivor = null;
    try {
      // a JVM starting on a busy machine: generous
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .failFast("the holder process ended", () -> !holder.isAlive())
          .until(() -> "2".equals(count(KeyLayout.permits(name))));
      RedisStores stores =
          nodes.open(REDIS.server().uri(), Duration.ofSeconds(1), 2, FailurePolicy.LOCAL);
      // the default lease time, as a user who sets nothing has
      survivor = ConcurrencyLimiter.builder(name)
          .spec(LimiterSpec.custom()
              .maxConcurrency(4)
              .maxQueue(8)
              .queueTimeout(Duration.ofSeconds(60))
              .build())
          .permitStore(stores.permits())
          .build();
      Permit first = survivor.acquire().get(10, TimeUnit.SECONDS);
      Permit second = survivor.acquire().get(10, TimeUnit.SECONDS);
      List<CompletableFuture<Permit>> waiters = List.of(survivor.acquire(), survivor.acquire());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> "2".equals(count(KeyLayout.permitLine(name))));
      assertThat(waiters).noneMatch(CompletableFuture::isDone);
      assertThat(count(KeyLayout.permits(name))).isEqualTo("4");

      long killed = System.nanoTime();
      holder.destroyForcibly();
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
      // the lease time (3 s) plus a renewal interval or a poll, with room for a busy machine;
      // with leases of 30 s this fails
      await()
          .atMost(Duration.ofSeconds(12))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> waiters.stream().allMatch(CompletableFuture::isDone));
      long millis = (System.nanoTime() - killed) / 1_000_000;
      System.out.printf(
          "the killed node's permits went to the waiters %d ms after the kill%n", millis);

      assertThat(waiters).allMatch(w -> !w.isCompletedExceptionally());
      assertThat(count(KeyLayout.permits(name))).as("the full limit, all here").isEqualTo("4");
      first.release();
      second.release();
      waiters.forEach(w -> w.join().release());
    } catch (AssertionError | RuntimeException e) {
      System.out.println("holder output:\n" + (log.exists() ? Files.readString(log.toPath()) : ""));
      throw e;
    } finally {
      holder.destroyForcibly();
      if (survivor != null) {
        survivor.shutdown();
      }
    }
  }
}
