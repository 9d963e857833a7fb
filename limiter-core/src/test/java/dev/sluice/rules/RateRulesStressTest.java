package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads, two overlapping rules, time frozen: no rule admits more than its limit, and the
 * broad rule's remaining quota is exactly its limit minus the requests admitted — requests rejected
 * by the narrow rule left nothing behind, however they interleaved.
 */
@Tag("stress")
class RateRulesStressTest {

  private static final int THREADS = 4;
  private static final int REQUESTS_PER_THREAD = 2_000;
  private static final long PER_IP = 2_000;
  private static final long PER_ACCOUNT = 50;

  @Test
  void overlappingRulesNeverOverAdmitNorOverCount() throws Exception {
    long seed = Seeds.seed();
    for (int round = 0; round < 3; round++) {
      runRound(seed + round * 1_000L);
    }
  }

  private void runRound(long seed) throws Exception {
    RateRules rules = RateRules.builder()
        .clock(new VirtualTime())
        .rules(RuleSet.of(List.of(
            Rule.builder()
                .id("per-ip")
                .resource("/api/**")
                .actor("ip")
                .limit(PER_IP, Duration.ofHours(1))
                .build(),
            Rule.builder()
                .id("history-per-account")
                .resource("/api/history/*")
                .actor("account")
                .limit(PER_ACCOUNT, Duration.ofHours(1))
                .build())))
        .build();
    Map<String, AtomicLong> admittedByIp = new ConcurrentHashMap<>();
    Map<String, AtomicLong> admittedByAccount = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      long threadSeed = seed + t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
          SplittableRandom random = new SplittableRandom(threadSeed);
          for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
            String ip = "10.0.0." + random.nextInt(2);
            String account = "acct-" + random.nextInt(20);
            boolean history = random.nextInt(20) != 0;
            TestRequest request = TestRequest.of(
                    "GET", history ? "/api/history/" + random.nextInt(1000) : "/api/other")
                .ip(ip)
                .account(account);
            RateVerdict verdict = rules.check(request).toCompletableFuture().join();
            if (verdict.allowed()) {
              admittedByIp.computeIfAbsent(ip, k -> new AtomicLong()).incrementAndGet();
              if (history) {
                admittedByAccount
                    .computeIfAbsent(account, k -> new AtomicLong())
                    .incrementAndGet();
              }
            } else {
              assertThat(verdict.rejectedBy().orElseThrow().rule().id())
                  .isEqualTo("history-per-account");
            }
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join(20_000);
    }
    assertThat(failures).as("seed %d", seed).isEmpty();
    admittedByAccount.forEach((account, admitted) -> assertThat(admitted.get())
        .as("seed %d, %s", seed, account)
        .isLessThanOrEqualTo(PER_ACCOUNT));
    admittedByIp.forEach((ip, admitted) -> {
      RateVerdict probe = rules
          .check(TestRequest.of("GET", "/api/other").ip(ip))
          .toCompletableFuture()
          .join();
      assertThat(probe.decisions().get(0).decision().remaining())
          .as("seed %d, %s", seed, ip)
          .isEqualTo(PER_IP - admitted.get() - 1);
    });
  }
}
