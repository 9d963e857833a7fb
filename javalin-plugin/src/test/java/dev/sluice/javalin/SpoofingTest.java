package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that rotates its own forwarding headers ({@code Forwarded}, {@code X-Forwarded-For},
 * {@code X-Real-IP}) gets no fresh quota, whether it talks to Sluice through a trusted proxy (the
 * test client's 127.0.0.1 is then the proxy) or directly from an untrusted address. The rule admits
 * two requests per minute per IP: of seven rotated requests exactly two pass.
 */
@Tag("integration")
class SpoofingTest {

  private static final String PER_IP = """
      rules:
        - id: per-ip
          resource: /api/**
          actor: ip
          limit: 2
          unit: minute\
      """;

  @TempDir
  Path dir;

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void start(Map<String, String> extra) throws IOException {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, PER_IP);
    Map<String, String> system = new HashMap<>(extra);
    system.put("sluice.rules.file", file.toString());
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(
        cfg -> cfg.properties(props),
        (app, plugin) -> app.routes.get("/api/x", ctx -> ctx.result("ok")));
  }

  private int passed(IntFunction<String[]> headers) {
    int ok = 0;
    for (int i = 1; i <= 7; i++) {
      HttpResponse<String> r = server.get("/api/x", headers.apply(i));
      assertThat(r.statusCode()).isIn(200, 429);
      if (r.statusCode() == 200) {
        ok++;
      }
    }
    return ok;
  }

  @Test
  void behindATrustedProxyWritingXForwardedForTheClientsOwnForwardedAndXRealIpChangeNothing()
      throws IOException {
    start(Map.of("sluice.trusted-proxies", "127.0.0.1/32"));

    int ok = passed(i -> new String[] {
      "X-Forwarded-For", "203.0.113.7", // what the proxy wrote
      "Forwarded", "for=198.51.100." + i, // what the client sent
      "X-Real-IP", "198.51.100." + i
    });

    assertThat(ok).isEqualTo(2);
  }

  @Test
  void behindATrustedProxyTheClientsOwnXForwardedForHopsAreLeftOfTheProxysAndIgnored()
      throws IOException {
    start(Map.of("sluice.trusted-proxies", "127.0.0.1/32"));

    int ok = passed(i -> new String[] {
      "X-Forwarded-For", "198.51.100." + i + ", 203.0.113.7", // client's hop, then proxy's
      "X-Real-IP", "198.51.100." + i
    });

    assertThat(ok).isEqualTo(2);
  }

  @Test
  void behindATrustedProxyWritingForwardedTheClientsXForwardedForChangesNothing()
      throws IOException {
    start(Map.of("sluice.trusted-proxies", "127.0.0.1/32", "sluice.forwarded-header", "forwarded"));

    int ok = passed(i -> new String[] {
      "Forwarded", "for=203.0.113.7;proto=https", // what the proxy wrote
      "X-Forwarded-For", "198.51.100." + i,
      "X-Real-IP", "198.51.100." + i
    });

    assertThat(ok).isEqualTo(2);
  }

  @Test
  void fromAnUntrustedPeerEveryForwardingHeaderIsIgnored() throws IOException {
    start(Map.of("sluice.trusted-proxies", "10.0.0.0/8"));

    int ok = passed(i -> new String[] {
      "Forwarded", "for=198.51.100." + i,
      "X-Forwarded-For", "198.51.101." + i,
      "X-Real-IP", "198.51.102." + i
    });

    assertThat(ok).isEqualTo(2);
  }

  @Test
  void anIpv6ClientRotatingThroughItsSlash64BehindATrustedProxyKeepsOneQuota() throws IOException {
    start(Map.of("sluice.trusted-proxies", "127.0.0.1/32"));

    int ok =
        passed(i -> new String[] {"X-Forwarded-For", "2001:db8:7:7::" + Integer.toHexString(i)});

    assertThat(ok).isEqualTo(2);
  }
}
