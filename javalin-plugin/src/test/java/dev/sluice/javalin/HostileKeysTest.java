package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flood of distinct client IPs (through a trusted proxy's {@code X-Forwarded-For}), accounts and
 * API keys through a real server: every rule's key table stays within {@code
 * sluice.rules.max-keys-per-rule}, the fair queue's keys within its queue, and a known actor of
 * each kind still gets exactly its allowance (its drained state is not evicted by the one-off
 * keys, which would hand it a fresh quota).
 */
@Tag("integration")
class HostileKeysTest {

  private static final int MAX_KEYS = 1_000;
  private static final int FLOOD = 100_000; // requests, each with a new IP, account and API key
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String RULES = """
      rules:
        - id: per-ip
          resource: /api/**
          actor: ip
          limit: 5
          unit: hour
        - id: per-account
          resource: /api/**
          actor: account
          limit: 5
          unit: hour
        - id: per-key
          resource: /api/**
          actor: header:X-Api-Key
          limit: 5
          unit: hour
      """;

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private SluiceProperties props(Map<String, String> extra) throws IOException {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, RULES);
    Map<String, String> system = new HashMap<>(Map.of(
        "sluice.rules.file", file.toString(),
        "sluice.rules.reload-interval", "0s",
        "sluice.trusted-proxies", "127.0.0.1/32",
        "sluice.limiters.api.path", "/api/**",
        "sluice.limiters.api.max-concurrency", "64",
        "sluice.limiters.api.max-queue", "16",
        "sluice.limiters.api.queue", "fair",
        "sluice.limiters.api.queue-key", "header:X-Api-Key",
        "sluice.limiters.api.max-queue-per-key", "2"));
    system.putAll(extra);
    return SluiceProperties.builder().env(Map.of()).system(system).build();
  }

  @Test
  void aFloodOfDistinctKeysKeepsEveryTableWithinItsBoundAndKnownActorsTheirAllowance()
      throws Exception {
    SluiceProperties props =
        props(Map.of("sluice.rules.max-keys-per-rule", Integer.toString(MAX_KEYS)));
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/items/{id}", ctx -> ctx.status(204)));
    Known known = new Known();
    known.twice();

    AtomicLong next = new AtomicLong();
    long[] statuses = new long[600];
    int rounds = 10;
    for (int round = 0; round < rounds; round++) {
      flood(next, FLOOD / rounds, statuses);
      JsonNode status = status();
      for (JsonNode rule : status.get("rules")) {
        assertThat(rule.get("maxKeys").asLong()).isEqualTo(MAX_KEYS);
        assertThat(rule.get("keys").asLong())
            .as("keys of %s after %d one-off requests", rule.get("id").asText(), next.get())
            .isBetween(1L, (long) MAX_KEYS);
      }
      assertThat(status.get("limiters").get(0).get("waiting").get("keys").asInt())
          .isLessThanOrEqualTo(16);
      if (round == rounds / 3 || round == 2 * rounds / 3) {
        known.once();
      }
    }
    assertThat(statuses[204]).as("every one-off key is new to its rules").isEqualTo(FLOOD);

    // 2 before the flood, 2 during, then the 5th passes and nothing more
    known.once();
    assertThat(known.statuses()).allSatisfy(s -> assertThat(s).containsOnly(204));
    known.once();
    known.once();
    for (List<Integer> kind : known.statuses()) {
      assertThat(kind).containsExactly(204, 204, 204, 204, 204, 429, 429);
    }
  }

  @Test
  void aKeyBoundBelowOneStopsStartUpNamingTheKey() throws IOException {
    SluiceProperties props = props(Map.of("sluice.rules.max-keys-per-rule", "0"));

    assertThatThrownBy(() -> server = TestServer.start(
            cfg -> cfg.properties(props),
            (app, plugin) -> app.routes.get("/api/items/{id}", ctx -> ctx.status(204))))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.rules.max-keys-per-rule='0'")
        .hasMessageContaining(">= 1");
  }

  private JsonNode status() throws IOException {
    return JSON.readTree(server.plugin.statusJson());
  }

  /** One known IP, account and API key, each sent with fresh values of the other two. */
  private final class Known {
    private final List<List<Integer>> statuses =
        List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    private int fresh;

    void twice() {
      once();
      once();
    }

    void once() {
      fresh++;
      send(0, "198.51.100.7", "fresh-account-" + fresh, "fresh-key-" + fresh);
      send(1, "192.0.2." + fresh, "known-account", "fresh-key-b" + fresh);
      send(2, "192.0.2." + (100 + fresh), "fresh-account-b" + fresh, "known-key");
    }

    private void send(int kind, String ip, String account, String key) {
      int status = server
          .get("/api/items/1", "X-Forwarded-For", ip, "X-Account-Id", account, "X-Api-Key", key)
          .statusCode();
      statuses.get(kind).add(status);
    }

    List<List<Integer>> statuses() {
      return statuses;
    }
  }

  /**
   * Sends {@code count} requests, each with a new client IP, account and API key, pipelined on a
   * few keep-alive connections, and counts the answers' statuses.
   */
  private void flood(AtomicLong next, int count, long[] statuses) throws Exception {
    int connections = 4;
    ExecutorService senders = Executors.newFixedThreadPool(connections);
    try {
      List<Future<long[]>> counted = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        int share = count / connections + (c < count % connections ? 1 : 0);
        counted.add(senders.submit(() -> pipeline(next, share)));
      }
      for (Future<long[]> f : counted) {
        long[] s = f.get();
        for (int i = 0; i < s.length; i++) {
          statuses[i] += s[i];
        }
      }
    } finally {
      senders.shutdownNow();
    }
  }

  private long[] pipeline(AtomicLong next, int count) throws IOException {
    long[] statuses = new long[600];
    int port = server.app.port();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      OutputStream out = socket.getOutputStream();
      BufferedReader in = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII), 1 << 16);
      int batch = 128; // write a batch, then read its answers: neither side's buffers fill up
      for (int sent = 0; sent < count; sent += batch) {
        int n = Math.min(batch, count - sent);
        StringBuilder requests = new StringBuilder(n * 160);
        for (int i = 0; i < n; i++) {
          long k = next.getAndIncrement();
          requests
              .append("GET /api/items/1 HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 10.")
              .append((k >> 16) & 255)
              .append('.')
              .append((k >> 8) & 255)
              .append('.')
              .append(k & 255)
              .append("\r\nX-Account-Id: account-")
              .append(k)
              .append("\r\nX-Api-Key: key-")
              .append(k)
              .append("\r\n\r\n");
        }
        out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        for (int i = 0; i < n; i++) {
          statuses[readResponse(in)]++;
        }
      }
    }
    return statuses;
  }

  /**
   * Reads one answer, headers only (the route answers 204, which has no body; a 429 with its body
   * would break the framing and fail the test, as it should: no one-off key is refused); its status.
   */
  private static int readResponse(BufferedReader in) throws IOException {
    String statusLine = in.readLine();
    if (statusLine == null || !statusLine.startsWith("HTTP/1.1 ")) {
      throw new IOException("expected a status line but read " + statusLine);
    }
    String header = in.readLine();
    while (header != null && !header.isEmpty()) {
      header = in.readLine();
    }
    return Integer.parseInt(statusLine.substring(9, 12));
  }
}
