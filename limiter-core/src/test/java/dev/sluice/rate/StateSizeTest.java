package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes of limiter state per key, beyond the key itself, measured with JOL on this JVM: the
 * algorithm's state object plus the map's entry (node, table slot). Measured between 1,000 and 2,000
 * keys so the fixed parts cancel out. Results are printed and recorded in limiter-core/README.md.
 */
class StateSizeTest {

  private static final int KEYS = 2_000;

  static {
    // a limiter may hold lambdas (hidden classes); JOL can walk them only with this mode, set
    // before JOL initializes
    System.setProperty("jol.magicFieldOffset", "true");
  }

  @ParameterizedTest
  // the bucket, GCRA and fixed-window states are all one AtomicLong; these three cover every shape
  @EnumSource(names = {"TOKEN_BUCKET", "SLIDING_WINDOW", "SLIDING_LOG"})
  void stateBeyondTheKeyStaysSmall(Algorithm algorithm) {
    VirtualTime time = new VirtualTime();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys.add("203.0.113." + i);
    }
    long withHalf = footprint(algorithm, time, keys.subList(0, KEYS / 2));
    long withAll = footprint(algorithm, time, keys);
    long keyBytes =
        GraphLayout.parseInstance(keys.subList(KEYS / 2, KEYS).toArray()).totalSize()
            - GraphLayout.parseInstance((Object) new Object[KEYS / 2]).totalSize();
    double perKey = (double) (withAll - withHalf - keyBytes) / (KEYS / 2);
    System.out.printf(
        "%s: %.1f bytes of state per key beyond the key (key ~%d bytes)%n",
        algorithm.id(), perKey, keyBytes / (KEYS / 2));
    // measured on JDK 17, compressed oops: 68.2 / 84.2 / 180.2 (README): the map's ~44-byte entry
    // plus the state, 24 / 40 / 136 bytes. Guards regressions.
    long bound =
        algorithm == Algorithm.TOKEN_BUCKET ? 80 : algorithm == Algorithm.SLIDING_WINDOW ? 96 : 192;
    assertThat(perKey).isPositive().isLessThan((double) bound);
  }

  private static long footprint(Algorithm algorithm, VirtualTime time, List<String> keys) {
    RateLimiter limiter = RateLimiter.builder(algorithm, RateLimit.of(10, Duration.ofMinutes(1)))
        .clock(time)
        .maxKeys(100_000)
        .build();
    for (String key : keys) {
      limiter.tryAcquire(key);
    }
    assertThat(limiter.trackedKeys()).isEqualTo(keys.size());
    return GraphLayout.parseInstance(limiter).totalSize();
  }
}
