package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RetryingClientTest {

  private final VirtualLoadClock clock = new VirtualLoadClock();
  private final Ledger ledger = new Ledger();
  private final Observations observations = new Observations(60);
  private final Deque<Reply> script = new ArrayDeque<>();
  private final List<Long> sendTimes = new ArrayList<>();
  private final Arrival arrival =
      new Arrival(0, "transcode", "POST", "/api/transcode?cpuMillis=10", Map.of());

  /** Answers each try 100 ms after it is sent, from the script. */
  private final Transport scripted = request -> {
    sendTimes.add(clock.nanoTime());
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    Reply next = script.poll();
    clock.schedule(() -> reply.complete(next), Duration.ofMillis(100).toNanos());
    return reply;
  };

  private RetryingClient client(int maxAttempts) {
    RetryAfterBackoff noJitter = new RetryAfterBackoff(
        Duration.ofMillis(200), 2, Duration.ofSeconds(5), 0, new Random(1), Clock.systemUTC());
    return new RetryingClient(
        scripted, clock, noJitter, maxAttempts, ledger, observations, clock.nanoTime());
  }

  @Test
  void honoursRetryAfterThenSucceeds() {
    script.add(new Reply(429, Optional.of("2"), "{}"));
    script.add(new Reply(200, Optional.empty(), "{\"serviceMillis\":12,\"queuedMillis\":3}"));
    long intended = clock.nanoTime();

    client(3).send(arrival, intended);
    clock.time.advance(Duration.ofSeconds(10));

    // answered at 100 ms, told to wait 2 s: the retry goes out at 2.1 s, not before
    assertThat(sendTimes).hasSize(2);
    assertThat(sendTimes.get(1) - sendTimes.get(0))
        .isEqualTo(Duration.ofMillis(2100).toNanos());
    Accounting a = ledger.close().verify();
    assertThat(a.outcomes()).isEqualTo(Map.of("transcode", Map.of("200", 1L)));
    assertThat(a.retries()).isEqualTo(1);
    assertThat(a.attemptStatuses()).isEqualTo(Map.of("200", 1L, "429", 1L));
    // latency counts from the intended send time through the wait: 2.2 s
    assertThat(observations.latency().get("transcode 200").getMaxValue())
        .as("HdrHistogram keeps 3 significant digits")
        .isBetween(2_198_000L, 2_203_000L);
    assertThat(observations.serviceMillis().get("transcode").getMaxValue()).isEqualTo(12);
  }

  @Test
  void givesUpAfterTheLastAllowedTryAndCountsIt() {
    for (int i = 0; i < 3; i++) {
      script.add(new Reply(504, Optional.empty(), "{}"));
    }

    client(3).send(arrival, clock.nanoTime());
    clock.time.advance(Duration.ofSeconds(10));

    assertThat(sendTimes).hasSize(3);
    // backoff without Retry-After: 200 ms, then 400 ms, after each 100 ms answer
    assertThat(sendTimes.get(1) - sendTimes.get(0))
        .isEqualTo(Duration.ofMillis(300).toNanos());
    assertThat(sendTimes.get(2) - sendTimes.get(1))
        .isEqualTo(Duration.ofMillis(500).toNanos());
    Accounting a = ledger.close().verify();
    assertThat(a.outcomes()).isEqualTo(Map.of("transcode", Map.of("504", 1L)));
    assertThat(a.gaveUp()).isEqualTo(1);
    assertThat(a.retries()).isEqualTo(2);
  }

  @Test
  void doesNotRetryAnAnswerThatRetryingCannotFix() {
    script.add(new Reply(400, Optional.empty(), "{}"));
    client(3).send(arrival, clock.nanoTime());
    clock.time.advance(Duration.ofSeconds(10));
    assertThat(sendTimes).hasSize(1);
    assertThat(ledger.close().verify().outcomes())
        .isEqualTo(Map.of("transcode", Map.of("400", 1L)));
  }

  @Test
  void aRetryDueAfterTheRunEndedIsNotSent() {
    script.add(new Reply(429, Optional.of("5"), "{}"));
    client(3).send(arrival, clock.nanoTime());
    clock.time.advance(Duration.ofSeconds(1));

    Accounting a = ledger.close();
    clock.time.advance(Duration.ofSeconds(10));

    assertThat(sendTimes).hasSize(1);
    assertThat(a.verify().outcomes())
        .isEqualTo(Map.of("transcode", Map.of(Accounting.UNFINISHED, 1L)));
    assertThat(ledger.snapshot()).isEqualTo(a);
  }
}
