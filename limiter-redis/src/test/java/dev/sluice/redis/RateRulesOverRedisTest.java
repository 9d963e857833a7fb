package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RulesFile;
import dev.sluice.store.FailurePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Core's rule engine with global rules, each node with its own Redis stores: one shared limit. */
@Tag("integration")
class RateRulesOverRedisTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private final Nodes nodes = new Nodes();

  @AfterEach
  void close() {
    nodes.close();
  }

  private RateRules node(String yaml) throws Exception {
    RedisStores stores =
        nodes.open(REDIS.server().uri(), Duration.ofSeconds(5), 2, FailurePolicy.DENY);
    return RateRules.builder()
        .rules(RulesFile.parse("test.yaml", yaml))
        .store(stores.rates())
        .build();
  }

  private static boolean allowed(RateRules rules, String account) {
    RateVerdict verdict =
        rules.check(new Request(account)).toCompletableFuture().join();
    return verdict.allowed();
  }

  @Test
  void twoNodesShareOneGlobalLimitPerAccount() throws Exception {
    String yaml = """
        rules:
          - id: history-%s
            resource: /api/history/*
            actor: account
            limit: 4
            unit: hour
            algorithm: sliding-log
            scope: global
        """.formatted(UUID.randomUUID());
    List<RateRules> cluster = List.of(node(yaml), node(yaml));

    long admitted = 0;
    for (int i = 0; i < 10; i++) {
      admitted += allowed(cluster.get(i % 2), "account-42") ? 1 : 0;
    }

    assertThat(admitted).isEqualTo(4);
    assertThat(allowed(cluster.get(0), "account-7")).as("another account").isTrue();
  }

  @Test
  void aRequestRejectedByOneGlobalRuleTakesNothingFromTheOther() throws Exception {
    String id = UUID.randomUUID().toString();
    String yaml = """
        rules:
          - id: all-%1$s
            resource: /api/**
            actor: all
            limit: 5
            unit: hour
            scope: global
          - id: history-%1$s
            resource: /api/history/*
            actor: account
            limit: 1
            unit: hour
            algorithm: fixed-window
            scope: global
        """.formatted(id);
    RateRules rules = node(yaml);

    assertThat(allowed(rules, "a")).isTrue();
    for (int i = 0; i < 10; i++) {
      assertThat(allowed(rules, "a")).as("account a is over its own limit").isFalse();
    }

    // the shared rule gave back what the rejected requests took: four more accounts fit in it
    long others = 0;
    for (String account : List.of("b", "c", "d", "e", "f")) {
      others += allowed(rules, account) ? 1 : 0;
    }
    assertThat(others).isEqualTo(4);
  }

  private record Request(String accountId) implements RequestInfo {
    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String path() {
      return "/api/history/1";
    }

    @Override
    public String clientIp() {
      return "10.0.0.1";
    }

    @Override
    public Optional<String> account() {
      return Optional.of(accountId);
    }

    @Override
    public Optional<String> device() {
      return Optional.empty();
    }

    @Override
    public Optional<String> header(String name) {
      return Optional.empty();
    }
  }
}
