package dev.sluice.grpc;

import static dev.sluice.grpc.TestServer.ECHO;
import static dev.sluice.grpc.TestServer.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceConfigException;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local rate rules from sluice.rules.file, checked before the limiter, keyed from metadata. */
@Tag("integration")
class RateRulesTest {

  @TempDir
  Path dir;

  private Path rules(String yaml) throws Exception {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private static Metadata tenant(String name) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER), name);
    return headers;
  }

  @Test
  void aRuleRefusesWithResourceExhaustedPushbackAndItsNameBeforeTheLimiterCounts()
      throws Exception {
    Path file = rules("""
        rules:
          - id: echo-per-tenant
            resource: /test.Work/Echo
            actor: header:X-Tenant
            limit: 2
            unit: minute
        """);
    try (TestServer server = new TestServer(TestServer.sluice(Map.of(
            "sluice.rules.file", file.toString(),
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.max-concurrency", "1",
            "sluice.limiters.work.max-queue", "4"))
        .build())) {
      for (int i = 0; i < 2; i++) {
        assertThat(statusOf(server.call(ECHO, CallOptions.DEFAULT, tenant("a"))).isOk())
            .isTrue();
      }

      Future<String> refused = server.call(ECHO, CallOptions.DEFAULT, tenant("a"));

      Status status = statusOf(refused);
      assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(status.getDescription())
          .isEqualTo("rate_limited: Rate rule 'echo-per-tenant' allows 2 requests per 60s.");
      assertThat(Long.parseLong(TestServer.pushback(refused))).isGreaterThanOrEqualTo(1000);
      assertThat(statusOf(server.call(ECHO, CallOptions.DEFAULT, tenant("b"))).isOk())
          .as("another tenant's quota")
          .isTrue();
      ConcurrencyLimiter work = server.sluice.limiter("work").orElseThrow();
      assertThat(work.snapshot().admitted())
          .as("the refused call never asked the limiter")
          .isEqualTo(3);
      assertThat(server.started).hasValue(3);
    }
  }

  @Test
  void aRuleGuardsAMethodNoLimiterGuards() throws Exception {
    Path file = rules("""
        rules:
          - resource: /test.Work/*
            actor: all
            limit: 1
            unit: hour
        """);
    try (TestServer server = new TestServer(
        TestServer.sluice(Map.of("sluice.rules.file", file.toString())).build())) {
      assertThat(statusOf(server.call(ECHO)).isOk()).isTrue();
      assertThat(statusOf(server.call(ECHO)).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(server.call(TestServer.PING).get()).isEqualTo("pong");
    }
  }

  @Test
  void globalAndShaperRulesAreRefusedNamingTheRule() throws Exception {
    Path global = rules("""
        rules:
          - id: shared
            resource: /test.Work/*
            actor: all
            limit: 5
            unit: second
            scope: global
        """);
    assertThatThrownBy(() ->
            TestServer.sluice(Map.of("sluice.rules.file", global.toString())).build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.rules.file")
        .hasMessageContaining("rule 'shared' has scope global");
    Path shaper = rules("""
        rules:
          - id: smooth
            resource: /test.Work/*
            actor: all
            limit: 5
            unit: second
            algorithm: leaky-bucket-shaper
        """);
    assertThatThrownBy(() ->
            TestServer.sluice(Map.of("sluice.rules.file", shaper.toString())).build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("rule 'smooth' is a shaper");
  }
}
