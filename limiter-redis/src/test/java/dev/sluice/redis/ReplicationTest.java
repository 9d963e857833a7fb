package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Placing the writes a promoted replica lacks, from {@code INFO replication} answers. */
class ReplicationTest {

  private static final String OLD = "a".repeat(40);
  private static final String NEW = "b".repeat(40);

  private static String master(String id, long offset) {
    return "# Replication\r\nrole:master\r\nconnected_slaves:1\r\nmaster_replid:" + id
        + "\r\nmaster_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:"
        + offset + "\r\nsecond_repl_offset:-1\r\n";
  }

  private static String promoted(long copiedUpTo) {
    return "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_replid:" + NEW
        + "\r\nmaster_replid2:" + OLD + "\r\nmaster_repl_offset:" + (copiedUpTo + 50)
        + "\r\nsecond_repl_offset:" + (copiedUpTo + 1) + "\r\n";
  }

  private static RateRequest request(String actor, long cost) {
    return new RateRequest(
        "rule", actor, Algorithm.TOKEN_BUCKET, RateLimit.of(20, Duration.ofHours(1)), cost);
  }

  @Test
  void theAdmissionsAfterTheLastPollTheReplicaHadAreCharged() {
    Replication replication = new Replication();
    assertThat(replication.answered(replication.nextPoll(), master(OLD, 100))).isNull();
    replication.admitted(request("early", 1)); // before the poll at offset 200: replicated
    assertThat(replication.answered(replication.nextPoll(), master(OLD, 200))).isNull();
    replication.admitted(request("late", 1)); // after it: the replica stopped at 200
    replication.admitted(request("late", 2));
    assertThat(replication.answered(replication.nextPoll(), master(OLD, 300))).isNull();
    replication.admitted(request("later", 1));

    Replication.Promotion promotion = replication.answered(replication.nextPoll(), promoted(200));

    assertThat(promotion.all()).isFalse();
    assertThat(promotion.charges())
        .extracting(RateRequest::key, RateRequest::cost)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("late", 3L),
            org.assertj.core.groups.Tuple.tuple("later", 1L));
  }

  @Test
  void aReplicaThatHadNoneOfTheKeptPollsGetsEverythingKeptCharged() {
    Replication replication = new Replication();
    replication.admitted(request("first", 1)); // before the first poll
    replication.answered(replication.nextPoll(), master(OLD, 500));
    replication.admitted(request("a", 2));

    Replication.Promotion promotion = replication.answered(replication.nextPoll(), promoted(100));

    assertThat(promotion.all()).isTrue();
    assertThat(promotion.charges())
        .extracting(RateRequest::key, RateRequest::cost)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("first", 1L),
            org.assertj.core.groups.Tuple.tuple("a", 2L));
  }

  @Test
  void onlyTheLastPollsAreKept() {
    Replication replication = new Replication();
    replication.admitted(request("old", 1));
    for (int i = 0; i <= Replication.KEPT; i++) {
      replication.answered(replication.nextPoll(), master(OLD, 1_000 + i));
    }
    replication.admitted(request("new", 1));

    Replication.Promotion promotion = replication.answered(replication.nextPoll(), promoted(10));

    assertThat(promotion.charges()).extracting(RateRequest::key).containsExactly("new");
  }

  @Test
  void aRestartWithANewHistoryIsNoPromotion() {
    Replication replication = new Replication();
    replication.answered(replication.nextPoll(), master(OLD, 500));
    replication.admitted(request("a", 1));

    assertThat(replication.answered(replication.nextPoll(), master(NEW, 0))).isNull();
    assertThat(replication.answered(replication.nextPoll(), master(NEW, 10))).isNull();
  }

  @Test
  void theSameMasterIsNoPromotionAndAReplicaIsNotReadFrom() {
    Replication replication = new Replication();
    replication.answered(replication.nextPoll(), master(OLD, 100));

    assertThat(replication.answered(replication.nextPoll(), master(OLD, 900))).isNull();
    assertThat(replication.answered(
            replication.nextPoll(), "role:slave\r\nmaster_replid:" + NEW + "\r\n"))
        .isNull();
  }

  @Test
  void afterANewHistoryTheAdmissionsAreKeptAgainAndAPromotionInItChargesThem() {
    Replication replication = new Replication();
    replication.answered(replication.nextPoll(), master(OLD, 500));
    replication.admitted(request("before", 1)); // in the old history: forgotten with it
    assertThat(replication.answered(replication.nextPoll(), master(NEW, 0))).isNull();
    replication.admitted(request("after", 2)); // the new history, after its poll at offset 0
    assertThat(replication.answered(replication.nextPoll(), master(NEW, 100))).isNull();
    replication.admitted(request("later", 1));

    String third = "c".repeat(40);
    Replication.Promotion promotion = replication.answered(
        replication.nextPoll(),
        "# Replication\r\nrole:master\r\nmaster_replid:" + third + "\r\nmaster_replid2:" + NEW
            + "\r\nmaster_repl_offset:90\r\nsecond_repl_offset:51\r\n");

    assertThat(promotion.all()).isFalse();
    assertThat(promotion.charges())
        .extracting(RateRequest::key, RateRequest::cost)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("after", 2L),
            org.assertj.core.groups.Tuple.tuple("later", 1L));
  }
}
