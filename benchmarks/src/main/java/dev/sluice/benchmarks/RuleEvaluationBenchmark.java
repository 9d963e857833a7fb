package dev.sluice.benchmarks;

import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFile;
import dev.sluice.rules.RulesFileException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Full rule evaluation of one request that matches three local rules (global ceiling, per IP, per
 * account), as the plugin runs it on every request: match the path, extract the actors' keys,
 * decide each rule. Limits are huge so every request is allowed (the common case). The request
 * walks 10,000 IPs and 10,000 accounts, so the keyed maps are exercised, not one hot entry.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RuleEvaluationBenchmark {

  static final String RULES = """
      rules:
        - id: ceiling
          resource: /api/**
          actor: all
          limit: 1000000000
          unit: second
        - id: per-ip
          resource: /api/**
          actor: ip
          limit: 1000000000
          unit: second
        - id: history-per-account
          resource: /api/history/*
          method: GET
          actor: account
          limit: 1000000000
          unit: second
        - id: unrelated
          resource: /admin/**
          actor: ip
          limit: 10
          unit: second\
      """;

  static final int ACTORS = 10_000;

  RateRules rules;
  Request[] requests;
  int next;

  @Setup
  public void setUp() throws RulesFileException {
    RuleSet ruleSet = RulesFile.parse("benchmark.yaml", RULES);
    rules = RateRules.builder().rules(ruleSet).build();
    requests = new Request[ACTORS];
    for (int i = 0; i < ACTORS; i++) {
      requests[i] = new Request("10.0." + (i >> 8) + "." + (i & 0xFF), "account-" + i);
    }
    RateVerdict probe = threeRules();
    if (!probe.allowed() || probe.decisions().size() != 3) {
      throw new IllegalStateException("the benchmark must measure three allowing rules: " + probe);
    }
  }

  /** Three matching rules, all allowed. */
  @Benchmark
  public RateVerdict threeRules() {
    Request request = requests[next++ % ACTORS];
    return rules.check(request).toCompletableFuture().getNow(null);
  }

  static final class Request implements RequestInfo {
    final String ip;
    final Optional<String> account;

    Request(String ip, String account) {
      this.ip = ip;
      this.account = Optional.of(account);
    }

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String path() {
      return "/api/history/42";
    }

    @Override
    public String clientIp() {
      return ip;
    }

    @Override
    public Optional<String> account() {
      return account;
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
