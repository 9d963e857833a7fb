package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Past its first permits a limiter without a listener times only a sample of its permits: counts
 * stay exact, times are estimated from the sample. With a listener every permit is timed.
 */
class ServiceTimeSamplingTest {

  private static final int PERMITS = 20_000;

  private final Limiters limiters = new Limiters();

  @Test
  void countsStayExactAndTheServiceTotalIsScaledFromTheSample() {
    ConcurrencyLimiter limiter = limiters.limiter(4, 0);
    for (int i = 0; i < PERMITS; i++) {
      Permit permit = limiter.tryAcquire().orElseThrow();
      // alternately 1 ms and 9 ms: mean 5 ms
      limiters.time.advance(Duration.ofMillis(i % 2 == 0 ? 1 : 9));
      permit.release();
    }

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(snapshot.admitted()).isEqualTo(PERMITS);
    assertThat(snapshot.serviceCount()).isEqualTo(PERMITS);
    assertThat(snapshot.inFlight()).isZero();
    // about 1,300 samples of a 4 ms deviation: the mean is within a few percent; 15% never fails
    double mean = (double) snapshot.serviceTotalNanos() / snapshot.serviceCount();
    assertThat(mean)
        .isCloseTo(
            (double) Duration.ofMillis(5).toNanos(),
            org.assertj.core.data.Percentage.withPercentage(15));
    assertThat(snapshot.serviceMaxNanos()).isEqualTo(Duration.ofMillis(9).toNanos());
  }

  @Test
  void aConstantServiceTimeIsReportedExactlyDespiteSampling() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 0);
    for (int i = 0; i < PERMITS; i++) {
      Permit permit = limiter.tryAcquire().orElseThrow();
      limiters.time.advance(Duration.ofMillis(3));
      permit.release();
    }

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(snapshot.serviceTotalNanos())
        .isEqualTo(PERMITS * Duration.ofMillis(3).toNanos());
    assertThat(snapshot.serviceMaxNanos()).isEqualTo(Duration.ofMillis(3).toNanos());
  }

  @Test
  void onlyASampleIsTimedOnceWarmedUp() {
    AtomicLong clockReads = new AtomicLong();
    ConcurrencyLimiter limiter = limiters
        .builder(2, 0, Duration.ofSeconds(1))
        .clock(() -> {
          clockReads.incrementAndGet();
          return limiters.time.nanoTime();
        })
        .build();
    for (int i = 0; i < PERMITS; i++) {
      limiter.tryAcquire().orElseThrow().release();
    }

    // two reads per timed permit: all of the first 64, then about 1 in 16
    long timed = clockReads.get() / 2;
    assertThat(timed).isBetween(64L + PERMITS / 32, 64L + PERMITS / 8);
  }

  @Test
  void samplingStartsRightAfterTheSixtyFourthPermit() {
    int limiterCount = 20;
    int sixtyFifthTimed = 0;
    for (int n = 0; n < limiterCount; n++) {
      AtomicLong clockReads = new AtomicLong();
      ConcurrencyLimiter limiter = limiters
          .builder(2, 0, Duration.ofSeconds(1))
          .clock(() -> {
            clockReads.incrementAndGet();
            return limiters.time.nanoTime();
          })
          .build();
      for (int i = 0; i < 64; i++) {
        limiter.tryAcquire().orElseThrow().release();
      }
      long warm = clockReads.get();
      limiter.tryAcquire().orElseThrow().release();
      if (clockReads.get() > warm) {
        sixtyFifthTimed++;
      }
    }

    // each 65th permit is timed with a chance of 1 in 16: all 20 of them with 16^-20
    assertThat(sixtyFifthTimed).isLessThan(limiterCount);
  }

  @Test
  void aListenerHearsEveryPermitsServiceTime() {
    AtomicLong released = new AtomicLong();
    AtomicLong totalNanos = new AtomicLong();
    ConcurrencyLimiter limiter = limiters
        .builder(2, 0, Duration.ofSeconds(1))
        .listener(new ConcurrencyListener() {
          @Override
          public void onReleased(String name, long serviceNanos) {
            released.incrementAndGet();
            totalNanos.addAndGet(serviceNanos);
          }
        })
        .build();
    for (int i = 0; i < PERMITS; i++) {
      Permit permit = limiter.tryAcquire().orElseThrow();
      limiters.time.advanceNanos(i);
      permit.release();
    }

    long expected = (long) PERMITS * (PERMITS - 1) / 2;
    assertThat(released).hasValue(PERMITS);
    assertThat(totalNanos).hasValue(expected);
    assertThat(limiter.snapshot().serviceTotalNanos())
        .as("exact when every permit is timed")
        .isEqualTo(expected);
  }
}
