package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.LoadTest;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.sampling.ThreadCount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short real overload run through the gRPC door: the capacity probe and one variant at 5x, each
 * on a demo service in a child JVM with its door open, real calls, real report. The figures are not
 * checked (3 s on a shared machine say nothing); that the calls went through the door, the thread
 * count was read and the retrying client's attempts were recorded and judged is.
 */
@Tag("integration")
class EmbeddedGrpcOverloadTest {

  @TempDir
  Path out;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES) // two demo starts and the 7 s capacity probe
  void aRunThroughTheDoorReportsItsThreadsAndTheRetryingClientsAttempts() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--scenario",
        "overload",
        "--door",
        "grpc",
        "--jobs",
        "long400",
        "--points",
        "5",
        "--variants",
        "standing",
        "--duration",
        "3s",
        "--drain",
        "2s",
        "--seed",
        "3",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    assertThat(Files.readString(report))
        .contains("gRPC door: threads and pushback")
        .contains("long400 jobs over gRPC at 5x");
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("door").asText()).isEqualTo("grpc");
    // the unloaded latency came from calls through the door
    assertThat(summary.get("capacity").get("long400").get("unloadedJobs").asInt())
        .isPositive();
    JsonNode run = summary.get("sweep").get(0);
    assertThat(run.get("error").isNull()).as(run.path("error").asText()).isTrue();
    assertThat(run.get("variant").asText()).isEqualTo("standing");
    JsonNode counts = run.get("figures").get("counts");
    assertThat(counts.get("sent").asLong()).isPositive();
    assertThat(counts.get("ok").asLong()).isPositive();
    // the demo's log shows the door was open and the jobs were calls, not HTTP requests
    assertThat(Files.readString(out.resolve("server-overload-long400-standing-5x.log")))
        .containsIgnoringCase("grpc");
    JsonNode door = run.get("door");
    if (ThreadCount.available()) {
      assertThat(door.get("unloadedThreads").get("readings").asInt()).isPositive();
      assertThat(door.get("threads").get("readings").asInt()).isPositive();
      assertThat(door.get("threads").get("min").asInt()).isPositive();
    }
    JsonNode pushback = door.get("pushback");
    assertThat(pushback.get("calls").asInt()).isPositive();
    assertThat(pushback.get("attempts").asInt())
        .isGreaterThanOrEqualTo(pushback.get("calls").asInt());
    assertThat(pushback.get("violationCount").asInt()).isZero();
    assertThat(door.get("inFlightMax").asInt()).isPositive();
  }
}
