package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.rate.Algorithm;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * What a caller can put into a Redis key (a rule id, an actor such as an account header, a limiter
 * name), with odd bytes at scale: every key Sluice builds for one rule and actor, or for one
 * limiter, has exactly one Cluster hash tag, the whole of the escaped names, so a script never
 * touches two slots and no name cuts the tag short, and the tag gives both names back, so two
 * different pairs never share a key. The corpus
 * (src/test/resources/dev/sluice/redis/KeyLayoutFuzzTestInputs/) is replayed as a plain test
 * without JAZZER_FUZZ=1.
 */
@Tag("fuzz")
class KeyLayoutFuzzTest {

  /**
   * The first byte picks the algorithm; the rest is the rule id and the actor, split at the first
   * NUL byte (none: the actor is empty).
   */
  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void everyKeyOfARuleAndActorHasOneHashTagHoldingBothNames(byte[] data) {
    if (data.length == 0) {
      return;
    }
    List<Algorithm> algorithms = List.of(Algorithm.values());
    Algorithm algorithm = algorithms.get(Byte.toUnsignedInt(data[0]) % algorithms.size());
    String text = new String(data, 1, data.length - 1, StandardCharsets.UTF_8);
    int nul = text.indexOf('\0');
    String rule = nul < 0 ? text : text.substring(0, nul);
    String actor = nul < 0 ? "" : text.substring(nul + 1);

    String state = KeyLayout.rate(rule, actor, algorithm);

    assertThat(state).startsWith("sluice:rate:{").endsWith("}:" + algorithm.id());
    String tag = hashTag(state);
    // the first colon splits the tag, so the key gives back both names and no other pair of
    // names has it
    int colon = tag.indexOf(':');
    assertThat(unescape(tag.substring(0, colon))).isEqualTo(rule);
    assertThat(unescape(tag.substring(colon + 1))).isEqualTo(actor);
    assertThat(hashTag(KeyLayout.charges(state))).isEqualTo(tag);
  }

  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void everyKeyOfALimiterHasOneHashTagHoldingItsName(byte[] data) {
    String limiter = new String(data, StandardCharsets.UTF_8);
    if (limiter.isEmpty()) {
      return;
    }

    String tag = hashTag(KeyLayout.permits(limiter));

    assertThat(unescape(tag)).isEqualTo(limiter);
    assertThat(hashTag(KeyLayout.permitLine(limiter))).isEqualTo(tag);
    assertThat(hashTag(KeyLayout.permitLineTtl(limiter))).isEqualTo(tag);
    assertThat(hashTag(KeyLayout.permitsFreed(limiter))).isEqualTo(tag);
  }

  /** The part of {@code key} Redis Cluster hashes: between the first '{' and the next '}'. */
  private static String hashTag(String key) {
    int open = key.indexOf('{');
    int close = open < 0 ? -1 : key.indexOf('}', open + 1);
    assertThat(close).as("a hash tag in %s", key).isGreaterThan(open + 1);
    return key.substring(open + 1, close);
  }

  private static String unescape(String tag) {
    return tag.replace("%3A", ":").replace("%7D", "}").replace("%7B", "{").replace("%25", "%");
  }
}
