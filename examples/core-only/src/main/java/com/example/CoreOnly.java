package com.example;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RulesFile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** limiter-core in plain Java: a concurrency limiter with a bounded queue, then a rate rule. */
public final class CoreOnly {

  public static void main(String[] args) throws Exception {
    // Two jobs at once, three more may wait up to one second each; beyond that: refused at once.
    LimiterSpec spec = LimiterSpec.custom()
        .maxConcurrency(2)
        .maxQueue(3)
        .queueTimeout(Duration.ofSeconds(1))
        .build();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.of("work", spec);

    // Eight jobs of 1.5 s at once: 2 run, 3 wait and time out after 1 s, 3 find the queue full.
    ExecutorService workers = Executors.newFixedThreadPool(2);
    List<CompletableFuture<String>> jobs = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      int job = i;
      // waits for a permit without holding a thread, runs the job, releases the permit at its end
      jobs.add(limiter
          .executeCompletionStage(() -> CompletableFuture.supplyAsync(() -> work(job), workers))
          .exceptionally(failure -> "job " + job + ": " + describe(failure)));
    }
    jobs.forEach(job -> System.out.println(job.join()));

    // The blocking form, for plain code: throws ConcurrencyRejectedException when refused.
    try (Permit permit = limiter.acquireBlocking()) {
      System.out.println("blocking job: ran with a permit");
    }
    limiter.shutdown();
    workers.shutdown();

    // Rate rules from YAML: the third request of the same IP within a minute is refused.
    RateRules rules = RateRules.builder()
        .rules(RulesFile.parse("ratelimits.yaml", """
            rules:
              - id: per-ip
                resource: /api/**
                actor: ip
                limit: 2
                unit: minute
            """))
        .build();
    for (int i = 1; i <= 3; i++) {
      RateVerdict verdict = rules.checkNow(new Request("GET", "/api/report", "203.0.113.7"));
      System.out.println("request " + i + ": "
          + (verdict.allowed() ? "allowed" : "refused by " + verdict.rejectedBy().orElseThrow().rule().id()));
    }
  }

  private static String work(int job) {
    try {
      Thread.sleep(1500); // stands in for the real job
      return "job " + job + ": done";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "job " + job + ": interrupted";
    }
  }

  private static String describe(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof ConcurrencyRejectedException rejected) {
      // QUEUE_FULL: answer 429; QUEUE_TIMEOUT: 504; SHUTDOWN: 503
      return "refused, " + rejected.outcome();
    }
    return "failed, " + cause;
  }

  /** What the rules need to know of a request; an HTTP layer builds one per request. */
  record Request(String method, String path, String clientIp) implements RequestInfo {
    @Override
    public Optional<String> account() {
      return Optional.empty();
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
