package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Outcome;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class QueueWaitsTest {

  @Tag("property")
  @Test
  void aBucketsUpperBoundIsAboveItsValuesAndWithinAQuarter() {
    long seed = dev.sluice.testing.Seeds.seed();
    Random random = new Random(seed);
    for (int i = 0; i < 100_000; i++) {
      long micros = random.nextLong(1L << random.nextInt(1, 50));
      long upper = QueueWaits.upperMicros(QueueWaits.bucket(micros));
      assertThat(upper)
          .as("seed %d, %d us", seed, micros)
          .isGreaterThan(micros)
          .isLessThanOrEqualTo(Math.max(micros + 1, (long) Math.ceil(micros * 1.25)));
    }
  }

  @Test
  void p99OfRecentWaitsAndNothingWhenNobodyWaited() {
    VirtualTime time = new VirtualTime();
    QueueWaits waits = new QueueWaits(time);
    assertThat(waits.p99Millis("work")).isEqualTo(-1);
    waits.onAdmitted("work", 0); // admitted at once: not a wait
    assertThat(waits.p99Millis("work")).isEqualTo(-1);

    for (int i = 0; i < 99; i++) {
      waits.onAdmitted("work", Duration.ofMillis(10).toNanos());
    }
    waits.onRejected("work", Outcome.QUEUE_TIMEOUT, Duration.ofSeconds(2).toNanos());
    assertThat(waits.p99Millis("work")).isBetween(10.0, 12.5);
    waits.onRejected("work", Outcome.QUEUE_TIMEOUT, Duration.ofSeconds(2).toNanos());
    assertThat(waits.p99Millis("work")).isBetween(2000.0, 2500.0);

    // two windows later the old waits are gone
    time.advance(Duration.ofNanos(QueueWaits.WINDOW_NANOS));
    waits.p99Millis("work");
    time.advance(Duration.ofNanos(QueueWaits.WINDOW_NANOS));
    assertThat(waits.p99Millis("work")).isEqualTo(-1);
  }
}
