package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.Seeds;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("property")
class AccountingTest {

  /**
   * Random servers: each try is answered at once, later with a random status (429 with Retry-After,
   * 503, 504, 200, 400), fails with an I/O error, throws on send, or never answers. Whatever happens,
   * after the books close every request has exactly one outcome and every try one status.
   */
  @RepeatedTest(20)
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void everyRequestEndsInExactlyOneOutcomeWhateverTheServerDoes() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    VirtualLoadClock clock = new VirtualLoadClock();
    Transport chaos = request -> {
      int pick = random.nextInt(10);
      if (pick == 0) {
        throw new IllegalStateException("refused on send");
      }
      CompletableFuture<Reply> reply = new CompletableFuture<>();
      if (pick == 1) {
        return reply; // never answers
      }
      Runnable answer = switch (pick) {
        case 2 -> () -> reply.completeExceptionally(new IOException("reset"));
        case 3, 4 -> () -> reply.complete(new Reply(429, Optional.of("1"), "{}"));
        case 5 -> () -> reply.complete(new Reply(503, Optional.empty(), "{}"));
        case 6 -> () -> reply.complete(new Reply(504, Optional.empty(), "{}"));
        case 7 -> () -> reply.complete(new Reply(400, Optional.empty(), "{}"));
        default -> () -> reply.complete(new Reply(200, Optional.empty(), "{\"serviceMillis\":5}"));
      };
      if (random.nextBoolean()) {
        answer.run();
      } else {
        clock.schedule(answer, random.nextInt(3_000_000) * 1000L);
      }
      return reply;
    };
    Ledger ledger = new Ledger();
    List<TrafficStream> streams = List.of(
        TrafficStream.constant("a", "GET", r -> "/a", 3, i -> Map.of(), 40),
        TrafficStream.constant("b", "POST", r -> "/b", 1, i -> Map.of(), 10));
    ArrivalPlan plan = ArrivalPlan.generate(streams, Duration.ofSeconds(5), seed);
    RetryingClient client = new RetryingClient(
        chaos,
        clock,
        new RetryAfterBackoff(
            Duration.ofMillis(100), 2, Duration.ofSeconds(2), 0.5, random, Clock.systemUTC()),
        1 + random.nextInt(4),
        ledger,
        new Observations(10),
        clock.nanoTime());
    new OpenLoopDispatcher(plan, clock, client).start();

    // close the books at a random moment after the last send: some tries are still open
    clock.time.advance(Duration.ofMillis(5000 + random.nextInt(3000)));
    Accounting books = ledger.close();
    clock.time.advance(Duration.ofSeconds(30)); // late answers and retry timers change nothing

    assertThat(books.verify().totalSent()).as("seed %d", seed).isEqualTo(plan.size());
    assertThat(ledger.snapshot()).as("seed %d", seed).isEqualTo(books);
  }

  @Test
  void verifyCatchesARequestCountedTwiceOrNotAtAll() {
    Accounting twice = new Accounting(
        Map.of("a", 2L), Map.of("a", Map.of("200", 2L, "429", 1L)), 2, 0, 0, Map.of("200", 2L), 0);
    assertThatThrownBy(twice::verify).hasMessageContaining("stream a: sent 2 but 3 outcomes");

    Accounting lostTry = new Accounting(
        Map.of("a", 2L), Map.of("a", Map.of("200", 2L)), 3, 1, 0, Map.of("200", 2L), 0);
    assertThatThrownBy(lostTry::verify)
        .hasMessageContaining("attempt statuses 2 + abandoned 0 != attempts 3");

    Accounting phantom =
        new Accounting(Map.of(), Map.of("x", Map.of("200", 1L)), 0, 0, 0, Map.of(), 0);
    assertThatThrownBy(phantom::verify).hasMessageContaining("stream x");
  }
}
