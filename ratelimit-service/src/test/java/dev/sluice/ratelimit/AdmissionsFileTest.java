package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.time.VirtualTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a replica writes about its own admissions, on a virtual clock and local counters. */
class AdmissionsFileTest {

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
  private final long midnight = RlsFixture.MIDNIGHT.getEpochSecond();

  private static Counters.Hit hit(long hits) {
    return new Counters.Hit("api_window_shared_", 3, Unit.SECOND, hits);
  }

  private long now() {
    return Math.floorDiv(time.nanoTime(), 1_000_000_000L);
  }

  @Test
  void aWindowIsWrittenOnceItHasEndedWithItsAdmittedAndRefusedHits() throws Exception {
    Path file = dir.resolve("admissions");
    try (AdmissionsFile admissions =
        AdmissionsFile.writtenOnDemand(new LocalCounters(time), file, time)) {
      for (int i = 0; i < 5; i++) {
        admissions.take(List.of(hit(1)), now()).toCompletableFuture().join();
      }
      admissions.writeEnded();
      assertThat(file).doesNotExist(); // the window is still open

      time.advance(Duration.ofSeconds(2));
      admissions.writeEnded();

      assertThat(Files.readAllLines(file)).containsExactly(midnight + " 1 3 2 api_window_shared_");
    }
  }

  @Test
  void aChecksHitIsNeitherAdmittedNorRefused() throws Exception {
    Path file = dir.resolve("admissions");
    Counters.Hit check =
        new Counters.Hit("api_window_shared_", 4, Unit.SECOND, 1, Algorithm.FIXED_WINDOW, true);
    try (AdmissionsFile admissions =
        AdmissionsFile.writtenOnDemand(new LocalCounters(time), file, time)) {
      admissions.take(List.of(hit(2)), now()).toCompletableFuture().join();
      admissions.take(List.of(check), now()).toCompletableFuture().join();
      admissions.giveBack(List.of(check), now()).toCompletableFuture().join();
      admissions.take(List.of(hit(2)), now()).toCompletableFuture().join();
      admissions.take(List.of(check), now()).toCompletableFuture().join(); // refused: 5 of 4
      admissions.giveBack(List.of(check), now()).toCompletableFuture().join();
    }

    assertThat(Files.readAllLines(file)).containsExactly(midnight + " 1 2 2 api_window_shared_");
  }

  @Test
  void hitsGivenBackAreNoLongerAdmitted() throws Exception {
    Path file = dir.resolve("admissions");
    try (AdmissionsFile admissions =
        AdmissionsFile.writtenOnDemand(new LocalCounters(time), file, time)) {
      admissions.take(List.of(hit(2), hit(1)), now()).toCompletableFuture().join();
      admissions.giveBack(List.of(hit(1)), now()).toCompletableFuture().join();
    }

    assertThat(Files.readAllLines(file)).containsExactly(midnight + " 1 2 0 api_window_shared_");
  }

  @Test
  void closingWritesTheWindowsStillOpenAndEachWindowHasItsLine() throws Exception {
    Path file = dir.resolve("admissions");
    try (AdmissionsFile admissions =
        AdmissionsFile.writtenOnDemand(new LocalCounters(time), file, time)) {
      admissions.take(List.of(hit(3)), now()).toCompletableFuture().join();
      time.advance(Duration.ofSeconds(1));
      admissions.take(List.of(hit(1)), now()).toCompletableFuture().join();
    }

    assertThat(Files.readAllLines(file))
        .containsExactlyInAnyOrder(
            midnight + " 1 3 0 api_window_shared_", (midnight + 1) + " 1 1 0 api_window_shared_");
  }

  @Test
  void anotherAlgorithmHasNoWindowToWrite() throws Exception {
    Path file = dir.resolve("admissions");
    try (AdmissionsFile admissions =
        AdmissionsFile.writtenOnDemand(new LocalCounters(time), file, time)) {
      admissions
          .take(
              List.of(new Counters.Hit("api_user_a_", 3, Unit.SECOND, 1, Algorithm.TOKEN_BUCKET)),
              now())
          .toCompletableFuture()
          .join();
    }

    assertThat(file).doesNotExist();
  }
}
