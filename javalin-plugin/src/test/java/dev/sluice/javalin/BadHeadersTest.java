package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Absurd client-address and actor headers, sent over a raw socket (the JDK client would refuse
 * some of them), through a trusted proxy and an untrusted one: Sluice answers 2xx or 429, never a
 * 500. Only values HTTP/1.1 lets through are sent (VCHAR, SP, HTAB, obs-text); Jetty itself
 * rejects the rest before any handler runs.
 */
@Tag("integration")
class BadHeadersTest {

  private static final String LONG = "9".repeat(6_000);

  @TempDir
  Path dir;

  private static List<String[]> badHeaders() {
    List<String[]> h = new ArrayList<>();
    for (String v : List.of(
        "",
        " ",
        "\t",
        LONG,
        "1.2.3.4,".repeat(700),
        ", , ,,",
        "999.1.1.1",
        "1.2.3",
        "1.2.3.4.5",
        "01.02.03.004",
        "-1.2.3.4",
        "::::::",
        ":::",
        "::%",
        "fe80::1%",
        "fe80::1%eth0",
        "fe80::1%ffffffffffffffffffff",
        "[::1",
        "[::1]:99999",
        "[]",
        "1.2.3.4:abc",
        "1.2.3.4:",
        "unknown",
        "_hidden",
        "%",
        "\u00ff\u00fe\u00e9",
        "1.2.3.4\t, \t5.6.7.8",
        "127.0.0.1, " + LONG,
        "2001:db8::1:2:3:4:5:6:7:8",
        "1".repeat(45) + ":")) {
      h.add(new String[] {"X-Forwarded-For", v});
    }
    for (String v : List.of(
        "",
        "for=",
        "for=\"",
        "for=\"\"",
        "for=\"[::1",
        "for=\"[::1]:80\"",
        "for=_hidden",
        "for=unknown;by=;;;",
        "for=1.2.3.4;for=5.6.7.8",
        ",,,,",
        ";;;",
        "=",
        "for=" + LONG,
        "for=\"\\\"",
        "FOR=1.2.3.4",
        "for=1.2.3.4, for=\"[2001:db8::1]:4711\"",
        "for=\u00ff",
        "proto=http;host=x",
        "for=999.999.999.999")) {
      h.add(new String[] {"Forwarded", v});
    }
    for (String name : List.of("X-Account-Id", "X-Device-Id")) {
      for (String v : List.of(
          "", " ", "\t", LONG, "a\tb", "\u00ff\u00fe\u00e9", "%00", "../../", "\"", "null", "{}")) {
        h.add(new String[] {name, v});
      }
    }
    return h;
  }

  @ParameterizedTest(name = "trusted proxies {0}")
  @ValueSource(strings = {"127.0.0.1/32", "10.0.0.0/8"}) // the test client is trusted, then not
  void absurdHeadersNeverGiveA500(String trusted) throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - {id: per-ip, resource: /api/**, actor: ip, limit: 1000, unit: minute}
          - {id: per-account, resource: /api/**, actor: account, limit: 1000, unit: minute}
          - {id: per-device, resource: /api/**, actor: device, limit: 1000, unit: minute}
          - {id: per-xff, resource: /api/**, actor: 'header:X-Forwarded-For', limit: 1000, unit: minute}\
        """);
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.rules.file", rules.toString(), "sluice.trusted-proxies", trusted))
        .build();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props),
        (app, plugin) -> app.routes.get("/api/item", ctx -> ctx.result("item")))) {
      Map<String, Integer> answers = new LinkedHashMap<>();
      for (String[] header : badHeaders()) {
        int status = status(server.app.port(), header[0] + ": " + header[1]);
        answers.put(header[0] + ": " + abbreviate(header[1]), status);
      }
      // all of them at once, twice over
      StringBuilder all = new StringBuilder();
      for (String[] header : badHeaders().subList(0, 12)) {
        if (header[1].length() < 100) {
          all.append(header[0]).append(": ").append(header[1]).append("\r\n");
          all.append("Forwarded: for=\"[::1\r\nX-Account-Id: \t\r\n");
        }
      }
      answers.put("all at once", status(server.app.port(), all.toString().strip()));

      assertThat(answers)
          .allSatisfy((header, status) -> assertThat(status)
              .as(header)
              .satisfiesAnyOf(
                  s -> assertThat(s).isBetween(200, 299), s -> assertThat(s).isEqualTo(429)));
    }
  }

  private static String abbreviate(String value) {
    return value.length() > 40
        ? value.substring(0, 40) + "...(" + value.length() + " chars)"
        : value;
  }

  /** One GET over a fresh connection carrying the given header lines; the response's status. */
  private static int status(int port, String headerLines) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      String request = "GET /api/item HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headerLines
          + "\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      BufferedReader in = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      String statusLine = in.readLine();
      assertThat(statusLine).as("status line").startsWith("HTTP/1.1 ");
      return Integer.parseInt(statusLine.split(" ")[1]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
