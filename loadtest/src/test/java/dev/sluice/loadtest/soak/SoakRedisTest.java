package dev.sluice.loadtest.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's own redis-server, read through Lettuce (needs redis-server on PATH). */
@Tag("integration")
class SoakRedisTest {

  @TempDir
  Path dir;

  @Test
  void anEmptyRedisIsReadAsTheSoakReadsIt() throws Exception {
    try (SoakRedis redis = SoakRedis.start(dir.resolve("redis.log"))) {
      assertThat(redis.keys()).isZero();
      assertThat(redis.usedMemory()).isPositive();
      assertThat(redis.command("CONFIG", "RESETSTAT")).isEqualTo("OK");
      assertThat(redis.command("INFO", "commandstats")).startsWith("# Commandstats");
    }
  }
}
