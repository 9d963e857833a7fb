package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Leases against a real redis-server; lease times scaled down from the pattern's 15 s to 600 ms. */
@Tag("integration")
class PartitionLeasesTest {

  private static RedisServer redis;
  private static int tests;
  private final List<PartitionLeases> opened = new ArrayList<>();
  // one redis-server for the class; each test leases a quota of its own
  private final String service = "svc-" + ++tests;

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @AfterEach
  void stop() {
    opened.forEach(PartitionLeases::close);
  }

  private PartitionLeases leases(
      String owner, PartitionLeasesConfig.Builder config, List<Long> paces) {
    PartitionLeases leases = PartitionLeases.builder(redis.uri(), config.build())
        .owner(owner)
        .random(new Random(owner.hashCode()))
        .onPace(paces::add)
        .build();
    opened.add(leases);
    return leases;
  }

  private PartitionLeasesConfig.Builder quota() {
    return PartitionLeasesConfig.custom(service)
        .partitions(20, 25)
        .leaseTime(Duration.ofMillis(600))
        .headroom(0);
  }

  @Test
  void aProcessLeasesWhatItWantsAndItsPaceIsPartitionsTimesRate() {
    List<Long> paces = new ArrayList<>();
    PartitionLeases a = leases("a", quota(), paces);

    a.want(8);

    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 8);
    assertThat(a.permitsPerSecond()).isEqualTo(200);
    assertThat(paces).containsExactly(0L, 200L);
  }

  @Test
  void partitionsAreNeverHeldTwiceAndTheRestGoesToWhoeverAsks() {
    PartitionLeases a = leases("a", quota(), new ArrayList<>());
    PartitionLeases b = leases("b", quota(), new ArrayList<>());
    a.want(15);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 15);

    b.want(15);

    await().atMost(Duration.ofSeconds(5)).until(() -> b.held() == 5);
    // renewals keep it so: nobody takes a live process's partitions
    await()
        .during(Duration.ofMillis(800))
        .atMost(Duration.ofSeconds(3))
        .until(() -> a.held() == 15 && b.held() == 5);
  }

  @Test
  void aDeadProcessLosesItsPartitionsAfterTheLeaseTime() {
    PartitionLeases a = leases("a", quota(), new ArrayList<>());
    PartitionLeases b = leases("b", quota(), new ArrayList<>());
    a.want(20);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 20);
    b.want(20);
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> b.held() == 0);

    long killedAt = System.nanoTime();
    a.abandon();
    opened.remove(a);

    await().atMost(Duration.ofSeconds(5)).until(() -> b.held() == 20);
    // a's last renewal was at most a third of a lease (200 ms) before the kill
    assertThat(Duration.ofNanos(System.nanoTime() - killedAt))
        .isGreaterThan(Duration.ofMillis(350));
  }

  @Test
  void anIdleProcessDropsItsPaceAtOnceAndItsPartitionsLapse() {
    List<Long> paces = new ArrayList<>();
    PartitionLeases a = leases("a", quota().reservedPerSecond(5), paces);
    PartitionLeases b = leases("b", quota(), new ArrayList<>());
    a.want(20);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 20);
    assertThat(a.permitsPerSecond()).isEqualTo(505);

    a.want(0);
    assertThat(a.permitsPerSecond()).isEqualTo(5); // the reserved share stays
    b.want(20);

    await().atMost(Duration.ofSeconds(5)).until(() -> b.held() == 20);
    assertThat(paces).startsWith(5L, 505L).endsWith(5L);
  }

  @Test
  void aProcessThatWantsFewerGivesThemBackAfterSlowingDown() {
    List<Long> paces = new ArrayList<>();
    PartitionLeases a = leases("a", quota(), paces);
    PartitionLeases b = leases("b", quota(), new ArrayList<>());
    a.want(20);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 20);

    a.want(4);
    assertThat(a.permitsPerSecond()).isEqualTo(100); // before Redis has even heard of it
    b.want(16);

    await().atMost(Duration.ofSeconds(5)).until(() -> b.held() == 16 && a.held() == 4);
  }

  @Test
  void maxPartitionsCapsOneProcess() {
    PartitionLeases a = leases("a", quota().maxPartitions(6), new ArrayList<>());
    a.want(20);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 6);
  }

  @Test
  void headroomLeavesAShareOfEachPartitionUnused() {
    PartitionLeases a = leases("a", quota().headroom(0.02), new ArrayList<>());
    a.want(20);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.held() == 20);
    assertThat(a.permitsPerSecond()).isEqualTo(490);
  }
}
