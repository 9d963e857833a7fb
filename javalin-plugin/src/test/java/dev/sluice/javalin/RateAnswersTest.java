package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class RateAnswersTest {

  @TempDir
  Path dir;

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void start(String rules, Map<String, String> extra) throws IOException {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, rules);
    Map<String, String> system = new HashMap<>(extra);
    system.put("sluice.rules.file", file.toString());
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(cfg -> cfg.properties(props), (app, plugin) -> {
      app.routes.before("/api/mine", ctx -> ctx.attribute("user", ctx.header("X-Token")));
      app.routes.get("/api/history/{id}", ctx -> ctx.result("history " + ctx.pathParam("id")));
      app.routes.get("/api/mine", ctx -> ctx.result("mine"));
    });
  }

  private static final String PER_IP = """
      rules:
        - id: history-per-ip
          resource: /api/history/*
          actor: ip
          limit: 2
          unit: minute\
      """;

  @Test
  void admittedResponsesCarryDraftAndXHeaders() throws IOException {
    start(PER_IP, Map.of());

    HttpResponse<String> ok = server.get("/api/history/1");

    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"history-per-ip\";q=2;w=60");
    assertThat(ok.headers().firstValue("RateLimit").orElseThrow())
        .startsWith("\"history-per-ip\";r=1;t=");
    assertThat(ok.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
    assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
    assertThat(ok.headers().firstValue("Retry-After")).isEmpty();
  }

  @Test
  void exceededRuleAnswers429NamingTheRuleWithEveryRateHeader() throws IOException {
    start(PER_IP, Map.of());
    server.get("/api/history/1");
    server.get("/api/history/2");

    HttpResponse<String> limited = server.get("/api/history/3");

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    assertThat(limited.body())
        .contains(
            "\"rule\":\"history-per-ip\"",
            "\"status\":429",
            "https://sluice.dev/problems/rate-limited",
            "\"title\":\"Rate limit exceeded\"");
    long retryAfter = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 60L);
    assertThat(limited.headers().firstValue("X-RateLimit-Retry-After"))
        .hasValue(Long.toString(retryAfter));
    assertThat(limited.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    assertThat(limited.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
    assertThat(limited.headers().firstValue("RateLimit"))
        .hasValue("\"history-per-ip\";r=0;t=" + retryAfter);
    assertThat(limited.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"history-per-ip\";q=2;w=60");
  }

  @Test
  void headerFamiliesAndStatusAreConfigurable() throws IOException {
    start(
        PER_IP,
        Map.of(
            "sluice.headers.x-ratelimit",
            "false",
            "sluice.headers.ratelimit",
            "off",
            "sluice.status.rate-limited",
            "503"));
    HttpResponse<String> admitted = server.get("/api/history/1");
    server.get("/api/history/1");

    HttpResponse<String> limited = server.get("/api/history/1");

    assertThat(admitted.statusCode()).isEqualTo(200);
    assertThat(admitted.headers().map().keySet())
        .noneMatch(h ->
            h.toLowerCase(Locale.ROOT).contains("ratelimit") || h.equalsIgnoreCase("retry-after"));
    assertThat(limited.statusCode()).isEqualTo(503);
    assertThat(limited.body()).contains("\"status\":503");
    assertThat(limited.headers().firstValue("Retry-After"))
        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
    assertThat(limited.headers().map().keySet())
        .noneMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("x-ratelimit")
            || h.equalsIgnoreCase("ratelimit")
            || h.equalsIgnoreCase("ratelimit-policy"));
  }

  @Test
  void spoofedForwardedForIsIgnoredFromAnUntrustedPeer() throws IOException {
    start(PER_IP, Map.of("sluice.trusted-proxies", "10.0.0.0/8"));

    server.get("/api/history/1", "X-Forwarded-For", "203.0.113.1");
    server.get("/api/history/1", "X-Forwarded-For", "203.0.113.2");
    HttpResponse<String> third = server.get("/api/history/1", "X-Forwarded-For", "203.0.113.3");

    assertThat(third.statusCode()).isEqualTo(429); // all three counted as 127.0.0.1
  }

  @Test
  void forwardedForIsBelievedFromATrustedPeerWalkingFromTheRight() throws IOException {
    start(PER_IP, Map.of("sluice.trusted-proxies", "127.0.0.1/32, 10.0.0.0/8"));

    for (int i = 1; i <= 3; i++) {
      // the client forged 198.51.100.9; the trusted proxy 10.1.1.1 appended the real peer
      HttpResponse<String> r = server.get(
          "/api/history/1", "X-Forwarded-For", "198.51.100.9, 203.0.113." + i + ", 10.1.1.1");
      assertThat(r.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void forwardedIsBelievedFromATrustedPeerWhenItIsTheConfiguredHeader() throws IOException {
    start(
        PER_IP,
        Map.of("sluice.trusted-proxies", "127.0.0.1/32", "sluice.forwarded-header", "forwarded"));

    server.get("/api/history/1", "Forwarded", "for=203.0.113.1;proto=https");
    server.get("/api/history/1", "Forwarded", "for=203.0.113.2");
    server.get("/api/history/1", "Forwarded", "for=\"203.0.113.1:4711\"");
    HttpResponse<String> repeated = server.get("/api/history/1", "Forwarded", "for=203.0.113.1");
    assertThat(repeated.statusCode()).isEqualTo(429);
  }

  @Test
  void garbageForwardingHeadersNeverCauseA500() throws IOException {
    start(PER_IP, Map.of("sluice.trusted-proxies", "127.0.0.1"));

    HttpResponse<String> r1 =
        server.get("/api/history/1", "X-Forwarded-For", ",,;;[::zz]:x, evil.example.com");
    HttpResponse<String> r2 = server.get("/api/history/1", "Forwarded", "for=\"[broken;by=;;;,,,=");

    assertThat(r1.statusCode()).isEqualTo(200);
    assertThat(r2.statusCode()).isEqualTo(200);
  }

  @Test
  void accountComesFromTheAuthHandlersAttribute() throws IOException {
    start("""
        rules:
          - id: mine-per-account
            resource: /api/mine
            actor: account
            limit: 1
            unit: minute\
        """, Map.of("sluice.actor.account-attribute", "user"));

    assertThat(server.get("/api/mine", "X-Token", "alice").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/mine", "X-Token", "bob").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/mine", "X-Token", "alice").statusCode()).isEqualTo(429);
  }

  @Test
  void healthIsNeverRateLimited() throws IOException {
    start("""
        rules:
          - id: everything
            resource: /**
            actor: all
            limit: 1
            unit: minute\
        """, Map.of());
    server.get("/api/history/1");
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(429);

    for (int i = 0; i < 3; i++) {
      assertThat(server.get("/health").statusCode()).isEqualTo(200);
    }
  }
}
