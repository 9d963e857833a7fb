package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import io.lettuce.core.cluster.SlotHash;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Redis Cluster: one rule and actor live in one slot, different actors spread out. */
class KeyLayoutTest {

  @Test
  void everyKeyOfOneRuleAndActorHashesToOneSlot() {
    Set<Integer> slots = new HashSet<>();
    Arrays.stream(Algorithm.values())
        .forEach(algorithm -> slots.add(
            SlotHash.getSlot(KeyLayout.rate("history-per-account", "account-42", algorithm))));

    assertThat(slots).containsExactly(SlotHash.getSlot("history-per-account:account-42"));
  }

  @Test
  void differentActorsSpreadOverTheCluster() {
    Set<Integer> slots = new HashSet<>();
    IntStream.range(0, 2_000)
        .forEach(i ->
            slots.add(SlotHash.getSlot(KeyLayout.rate("per-ip", "10.0.0." + i, Algorithm.GCRA))));

    assertThat(slots.size()).isGreaterThan(1_500);
  }

  @Test
  void bracesInNamesCannotCutTheHashTagShort() {
    String key = KeyLayout.rate("rule}x", "a{b}c", Algorithm.SLIDING_LOG);

    assertThat(key).isEqualTo("sluice:rate:{rule%7Dx:a%7Bb%7Dc}:sliding-log");
    assertThat(KeyLayout.rate("r", "a}b", Algorithm.GCRA))
        .isNotEqualTo(KeyLayout.rate("r", "a%7Db", Algorithm.GCRA));
    assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot("rule%7Dx:a%7Bb%7Dc"));
  }

  @Test
  void thePermitsOfOneLimiterLiveInOneSlot() {
    assertThat(SlotHash.getSlot(KeyLayout.permits("transcode")))
        .isEqualTo(SlotHash.getSlot("transcode"));
  }

  @Test
  void aNameThatStartsWithABraceOrAPercentIsEncodedToo() {
    assertThat(KeyLayout.rate("{r", "a", Algorithm.GCRA)).isEqualTo("sluice:rate:{%7Br:a}:gcra");
    assertThat(KeyLayout.rate("r", "}a", Algorithm.GCRA)).isEqualTo("sluice:rate:{r:%7Da}:gcra");
    assertThat(KeyLayout.rate("%r", "a", Algorithm.GCRA)).isEqualTo("sluice:rate:{%25r:a}:gcra");
  }

  @Test
  void aColonInARuleIdCannotMakeTwoRulesAndActorsShareAKey() {
    assertThat(KeyLayout.rate("a", "b:c", Algorithm.TOKEN_BUCKET))
        .isEqualTo("sluice:rate:{a:b:c}:token-bucket")
        .isNotEqualTo(KeyLayout.rate("a:b", "c", Algorithm.TOKEN_BUCKET));
    assertThat(KeyLayout.rate("a:b", "c", Algorithm.TOKEN_BUCKET))
        .isEqualTo("sluice:rate:{a%3Ab:c}:token-bucket");
    // an IPv6 actor keeps its colons: its key reads as its address
    assertThat(KeyLayout.rate("per-ip", "2001:db8::1", Algorithm.GCRA))
        .isEqualTo("sluice:rate:{per-ip:2001:db8::1}:gcra");
  }

  @Test
  void aPercentSignAloneIsEncodedSoItCannotCollideWithAnEncodedBrace() {
    assertThat(KeyLayout.rate("r", "a%7Db", Algorithm.GCRA))
        .isEqualTo("sluice:rate:{r:a%257Db}:gcra");
  }

  @Test
  void everyKeyOfALimiterOrARuleHasItsDocumentedName() {
    String state = KeyLayout.rate("r", "a", Algorithm.TOKEN_BUCKET);

    assertThat(KeyLayout.charges(state)).isEqualTo(state + ":charges");
    assertThat(KeyLayout.permits("t")).isEqualTo("sluice:permits:{t}");
    assertThat(KeyLayout.permitLine("t")).isEqualTo("sluice:permits:{t}:line");
    assertThat(KeyLayout.permitLineTtl("t")).isEqualTo("sluice:permits:{t}:line-ttl");
    assertThat(KeyLayout.permitsFreed("t")).isEqualTo("sluice:permits:{t}:freed");
  }
}
