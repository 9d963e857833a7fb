package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A slow Redis told from a dead one, against a real Redis; the PING's round trip is measured on a
 * clock that moves {@code step} per reading, so "slow" needs no slow server. A frozen Redis is in
 * NetworkFaultTest.
 */
@Tag("integration")
class StallCheckTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  /**
   * The wait for a PING's verdict or a new connection to a local Redis: a mutant that keeps it from
   * coming fails the test here, within PIT's timeout allowance for a test (4 s and more).
   */
  private static final Duration WAIT = Duration.ofSeconds(2);

  private final AtomicLong step = new AtomicLong();
  private final AtomicLong ticks = new AtomicLong();
  private final NanoClock ticker = () -> ticks.addAndGet(step.get());
  private Link link;

  private StallCheck connected() {
    StoreSettings settings = new StoreSettings(
        REDIS.server().uri(), TIMEOUT, 1, FailurePolicy.LOCAL, NanoClock.system());
    link = new Link(settings, UriOptions.parse(REDIS.server().uri()), new CallBound(settings));
    link.connect().join();
    return new StallCheck(link, TIMEOUT, ticker);
  }

  @AfterEach
  void close() {
    if (link != null) {
      link.close();
    }
  }

  private static void settled(StallCheck check, String advice) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(2))
        .until(() -> check.advice().equals(advice));
  }

  @Test
  void aPingSlowerThanTheTimeoutAdvisesRaisingIt() {
    StallCheck check = connected();
    step.set(Duration.ofMillis(120).toNanos());

    check.timedOut();

    String advice = "slow: a PING took 120 ms, sluice.redis.timeout is 50 ms; raise it above the "
        + "round trip if Redis is this far";
    settled(check, advice);
    assertThat(check.replaced()).isZero();
  }

  @Test
  void aPingWithinTheTimeoutWasOneLateCall() {
    StallCheck check = connected();
    step.set(Duration.ofMillis(120).toNanos());
    check.timedOut();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(2))
        .until(() -> !check.advice().isEmpty());

    step.set(TIMEOUT.toNanos());
    await().atMost(WAIT).pollInterval(Duration.ofMillis(2)).until(() -> {
      check.timedOut(); // one check at a time: again until the previous one ended
      return check.advice().isEmpty();
    });
    assertThat(check.replaced()).isZero();
  }

  @Test
  void anAnswerInTimeEndsTheAdvice() {
    StallCheck check = connected();
    step.set(Duration.ofMillis(120).toNanos());
    check.timedOut();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(2))
        .until(() -> !check.advice().isEmpty());

    check.answered();

    assertThat(check.advice()).isEmpty();
  }

  @Test
  void aConnectionThatCannotAnswerIsReplaced() {
    StallCheck check = connected();
    var stuck = link.current();
    stuck.close();

    check.timedOut();

    await().atMost(WAIT).pollInterval(Duration.ofMillis(2)).until(() -> check.replaced() == 1);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(2))
        .until(() -> link.current() != null && link.current() != stuck);
    assertThat(check.advice()).isEmpty();
    assertThat(link.commands()).isNotNull();
  }

  @Test
  void withoutAConnectionThereIsNothingToCheck() {
    StoreSettings settings = new StoreSettings(
        REDIS.server().uri(), TIMEOUT, 1, FailurePolicy.LOCAL, NanoClock.system());
    link = new Link(settings, UriOptions.parse(REDIS.server().uri()), new CallBound(settings));
    StallCheck check = new StallCheck(link, TIMEOUT, ticker);
    step.set(1);

    check.timedOut();

    assertThat(ticks).hasValue(0);
    assertThat(check.replaced()).isZero();
  }
}
