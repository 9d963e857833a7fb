package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue properties of one limiter, and the Caller a request queues as. */
class QueueSettingsTest {

  private static final String P = "sluice.limiters.transcode.";

  private static QueueSettings parse(Map<String, String> values) {
    LimiterConfig.Builder b = LimiterConfig.custom("transcode");
    values.forEach(
        (key, value) -> b.parse(LimiterKeys.byName(key.substring(P.length())), value, "test"));
    return b.build().queue();
  }

  @Test
  void defaultsToPlainFifoWithNoPerRequestCaller() {
    QueueSettings s = parse(Map.of());

    assertThat(s).isEqualTo(QueueSettings.FIFO);
    assertThat(s.needsCaller()).isFalse();
    assertThat(s.describe()).isEqualTo("fifo");
  }

  @Test
  void fairQueuesByIpUnlessTold() {
    QueueSettings s = parse(Map.of(P + "queue", "FAIR"));

    assertThat(s.fair()).isTrue();
    assertThat(s.key().get().id()).isEqualTo("ip");
    assertThat(s.needsCaller()).isTrue();
  }

  @Test
  void readsEveryProperty() {
    QueueSettings s = parse(Map.of(
        P + "queue",
        "fair",
        P + "queue-key",
        "header:X-Host-Id",
        P + "max-queue-per-key",
        "4",
        P + "priority-header",
        "X-Priority"));

    assertThat(s.key().get().id()).isEqualTo("header:x-host-id");
    assertThat(s.maxQueuePerKey()).isEqualTo(4);
    assertThat(s.priorityHeader()).hasValue("X-Priority");
    assertThat(s.describe())
        .isEqualTo("fair by header:x-host-id, max 4 per key, classes from X-Priority");
    QueueSnapshot queued = queuedOne(s, Caller.of("host-7").withPriority(Priority.CRITICAL));
    assertThat(queued.critical()).as("classes").isEqualTo(1);
    assertThat(queued.keys()).as("keys").isEqualTo(1);
  }

  @Test
  void aPriorityHeaderAloneMakesAFifoQueueWithClasses() {
    QueueSettings s = parse(Map.of(P + "priority-header", "X-Priority"));

    assertThat(s.fair()).isFalse();
    assertThat(s.needsCaller()).isTrue();
    QueueSnapshot queued = queuedOne(s, Caller.of("host-7").withPriority(Priority.CRITICAL));
    assertThat(queued.critical()).as("classes").isEqualTo(1);
    assertThat(queued.keys()).as("no keys").isZero();
  }

  @Test
  void badValuesFailNamingKeyAndValue() {
    assertThatThrownBy(() -> parse(Map.of(P + "queue", "lifo")))
        .hasMessage(P + "queue='lifo' (from test): allowed: fifo, fair");
    assertThatThrownBy(() -> parse(Map.of(P + "queue", "fair", P + "queue-key", "all")))
        .hasMessage(P + "queue-key='all' (from test): allowed: ip, account, device, header:NAME");
    assertThatThrownBy(() -> parse(Map.of(P + "queue", "fair", P + "queue-key", "header:a(b")))
        .hasMessageStartingWith(P + "queue-key='header:a(b' (from test): header name must be");
    assertThatThrownBy(() -> parse(Map.of(P + "queue", "fair", P + "max-queue-per-key", "-1")))
        .hasMessageStartingWith(P + "max-queue-per-key='-1' (from test): must be >= 0");
    assertThatThrownBy(() -> parse(Map.of(P + "priority-header", "X:Priority")))
        .hasMessage(P + "priority-header='X:Priority' (from test): not a valid header name");
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
}
