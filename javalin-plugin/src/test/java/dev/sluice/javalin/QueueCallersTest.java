package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.QueueCallers;
import dev.sluice.config.QueueSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue properties of one limiter, and the Caller a request queues as. */
class QueueCallersTest {

  private static final String P = "sluice.limiters.transcode.";

  private static QueueSettings parse(Map<String, String> values) {
    LimiterConfig.Builder b = LimiterConfig.custom("transcode");
    values.forEach(
        (key, value) -> b.parse(LimiterKeys.byName(key.substring(P.length())), value, "test"));
    return b.build().queue();
  }

  @Test
  void plainFifoHasNeitherClassesNorKeys() {
    QueueSnapshot queued =
        queuedOne(QueueSettings.FIFO, Caller.of("host-7").withPriority(Priority.CRITICAL));

    assertThat(queued.normal()).isEqualTo(1);
    assertThat(queued.keys()).isZero();
  }

  /** What a limiter with this discipline shows once {@code caller} waits in it. */
  // requests left in flight to hold the limiter's permits or queue; the test asserts on the other
  // answers
  @SuppressWarnings("FutureReturnValueIgnored")
  private static QueueSnapshot queuedOne(QueueSettings settings, Caller caller) {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.of(
        "q", LimiterSpec.custom().maxConcurrency(1).queue(settings.spec()).build());
    limiter.acquire().join();
    limiter.acquire(caller);
    QueueSnapshot snapshot = limiter.queueSnapshot();
    limiter.shutdown();
    return snapshot;
  }

  @Test
  void keyAndCapMeanNothingToAFifoQueueAndAreReportedAsIgnored() {
    LimiterConfig fifo = LimiterConfig.custom("transcode")
        .set(LimiterKeys.QUEUE_KEY, "header:X-Host-Id")
        .set(LimiterKeys.MAX_QUEUE_PER_KEY, 2)
        .build();

    assertThat(fifo.queue()).isEqualTo(QueueSettings.FIFO);
    assertThat(QueueSettings.ignoredWithFifo(fifo))
        .containsExactly(P + "queue-key", P + "max-queue-per-key");
    assertThat(new QueueCallers(fifo.queue()).needed())
        .as("no Caller per request")
        .isFalse();
  }

  @Test
  void aRequestQueuesUnderItsKeyAndClass() {
    QueueCallers callers = new QueueCallers(parse(Map.of(
        P + "queue",
        "fair",
        P + "queue-key",
        "header:X-Host-Id",
        P + "priority-header",
        "X-Priority")));

    assertThat(callers.needed()).isTrue();
    Caller caller = callers.of(
        TestRequest.withHeaders(Map.of("x-host-id", "host-7", "x-priority", " Critical ")));

    assertThat(caller.key()).isEqualTo("host-7");
    assertThat(caller.priority()).isEqualTo(Priority.CRITICAL);
  }

  @Test
  void aMissingKeyIsUnknownAndAnUnknownClassIsNormal() {
    QueueCallers callers = new QueueCallers(parse(Map.of(
        P + "queue", "fair", P + "queue-key", "account", P + "priority-header", "X-Priority")));

    Caller caller = callers.of(TestRequest.withHeaders(Map.of("x-priority", "urgent!!")));

    assertThat(caller.key()).isEqualTo(Caller.UNKNOWN_KEY);
    assertThat(caller.priority()).isEqualTo(Priority.NORMAL);
  }

  @Test
  void aLongOrOddKeyIsBoundedAsARuleKey() {
    QueueCallers callers =
        new QueueCallers(parse(Map.of(P + "queue", "fair", P + "queue-key", "header:X-Host-Id")));

    Caller caller = callers.of(TestRequest.withHeaders(Map.of("x-host-id", "h".repeat(500))));

    assertThat(caller.key()).startsWith("~").hasSizeLessThan(40);
  }
}
