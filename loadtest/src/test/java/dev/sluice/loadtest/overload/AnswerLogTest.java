package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.Reply;
import dev.sluice.loadtest.engine.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Latencies from the intended send, on a virtual clock that wraps past Long.MAX_VALUE mid-run. */
class AnswerLogTest {

  private final AtomicLong now =
      new AtomicLong(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(300));
  private final List<CompletableFuture<Reply>> pending = new ArrayList<>();
  private final Transport server = arrival -> {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    pending.add(reply);
    return reply;
  };

  private static Arrival at(double second, String size) {
    return new Arrival((long) (second * 1e9), size, "POST", "/api/transcode", Map.of());
  }

  private void advanceMillis(long millis) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void latencyRunsFromTheIntendedSendAndALateSendShowsInIt() {
    AnswerLog log = new AnswerLog(now::get);
    Transport logged = log.wrap().apply(server);
    long start = now.get();

    logged.send(at(0, "short")); // sent on time at 0
    advanceMillis(1000);
    logged.send(at(0.5, "long")); // sent 500 ms late, at 1 s
    advanceMillis(20);
    pending
        .get(0)
        .complete(
            new Reply(200, Optional.empty(), "{\"serviceMillis\":20,\"cpuUsedMillis\":18.5}"));
    advanceMillis(30);
    pending
        .get(1)
        .complete(new Reply(
            429,
            Optional.of("1"),
            "{\"title\":\"Too Many Requests\",\"reason\":\"standing_queue\"}"));
    pending.add(null);
    logged.send(at(1.05, "short")); // on time
    pending.get(3).completeExceptionally(new java.io.IOException("reset"));

    List<Answer> answers = log.answers();

    assertThat(answers).hasSize(3);
    Answer first = answers.stream().filter(a -> a.status() == 200).findFirst().orElseThrow();
    assertThat(first.sentAt()).isEqualTo(0);
    assertThat(first.latencyMillis()).isCloseTo(1020, within(1e-6));
    assertThat(first.jobCpuMillis()).isEqualTo(18.5);
    Answer late = answers.stream().filter(a -> a.status() == 429).findFirst().orElseThrow();
    assertThat(late.size()).isEqualTo("long");
    assertThat(late.latencyMillis()).isCloseTo(550, within(1e-6)); // 500 late + 50
    assertThat(late.reason()).isEqualTo("standing_queue");
    assertThat(late.jobCpuMillis()).isNaN(); // a refusal did no work
    Answer failed =
        answers.stream().filter(a -> a.status() == Answer.IO_ERROR).findFirst().orElseThrow();
    assertThat(now.get()).isNegative(); // wrapped: only differences mean anything
    assertThat(failed.answeredAt()).isCloseTo((now.get() - start) / 1e9, within(1e-9));
    assertThat(failed.reason()).isNull();
  }
}
