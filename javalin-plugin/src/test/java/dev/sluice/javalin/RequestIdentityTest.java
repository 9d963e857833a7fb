package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who a request is, as the rules see it ({@link ContextRequestInfo} over real Jetty requests, on
 * IPv4 and IPv6 loopback): the client address with and without trusted proxies, the account from
 * the auth attribute or its header, the device header, and blank values as none.
 */
class RequestIdentityTest {

  private static final Settings PLAIN = settings(Map.of());
  private static final Settings PROXIED =
      settings(Map.of("sluice.trusted-proxies", "127.0.0.1, ::1"));
  private static final Settings NAMED = settings(Map.of(
      "sluice.actor.account-attribute", "user",
      "sluice.actor.account-header", "X-Acct",
      "sluice.actor.device-header", "X-Dev"));

  private static Javalin app;
  private static ServerConnector v4;
  private static ServerConnector v6;
  private static HttpClient client;

  private static Settings settings(Map<String, String> system) {
    return Settings.resolve(
        SluiceProperties.builder().env(Map.of()).system(system).build(), Map.of());
  }

  /** What the rules would read of the request, one field a line. */
  private static String identity(ContextRequestInfo info) {
    String ip = info.clientIp();
    return "ip=" + ip + " again=" + info.clientIp().equals(ip) + "\naccount=" + text(info.account())
        + "\ndevice=" + text(info.device()) + "\nattribute=" + text(info.attribute("user"));
  }

  private static String text(Optional<?> value) {
    return value.map(v -> "<" + v + ">").orElse("none");
  }

  private static ServerConnector connector(org.eclipse.jetty.server.Server jetty, String host) {
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost(host);
    return connector;
  }

  @BeforeAll
  static void start() {
    PeerAddresses peers = new PeerAddresses();
    app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.jetty.addConnector((jetty, http) -> v4 = connector(jetty, "127.0.0.1"));
      config.jetty.addConnector((jetty, http) -> v6 = connector(jetty, "::1"));
      config.routes.before(ctx -> {
        String user = ctx.queryParam("user");
        if (user != null) {
          ctx.attribute("user", user);
        }
      });
      config.routes.get(
          "/plain",
          ctx -> ctx.result(identity(new ContextRequestInfo(ctx, ctx.path(), PLAIN, peers))));
      config.routes.get(
          "/unshared", ctx -> ctx.result(identity(new ContextRequestInfo(ctx, ctx.path(), PLAIN))));
      config.routes.get(
          "/proxied",
          ctx -> ctx.result(identity(new ContextRequestInfo(ctx, ctx.path(), PROXIED, peers))));
      config.routes.get(
          "/named",
          ctx -> ctx.result(identity(new ContextRequestInfo(ctx, ctx.path(), NAMED, peers))));
    });
    app.start();
    client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  @AfterAll
  static void stop() {
    app.stop();
  }

  private static String get(String host, int port, String path, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
        .timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private static String v4(String path, String... headers) throws Exception {
    return get("127.0.0.1", v4.getLocalPort(), path, headers);
  }

  private static String v6(String path, String... headers) throws Exception {
    return get("[::1]", v6.getLocalPort(), path, headers);
  }

  @Test
  void withoutTrustedProxiesTheClientIsThePeerWhateverItForwards() throws Exception {
    assertThat(v4("/plain", "X-Forwarded-For", "203.0.113.7"))
        .startsWith("ip=127.0.0.1 again=true\n");
    assertThat(v4("/unshared", "X-Forwarded-For", "203.0.113.7"))
        .startsWith("ip=127.0.0.1 again=true\n");
  }

  @Test
  void anIpv6PeerIsKeyedByItsSlash64() throws Exception {
    assertThat(v6("/plain")).startsWith("ip=0:0:0:0:0:0:0:0/64 again=true\n");
  }

  @Test
  void behindATrustedProxyTheClientIsTheOneItForwards() throws Exception {
    assertThat(v4("/proxied", "X-Forwarded-For", "198.51.100.1, 203.0.113.7"))
        .startsWith("ip=203.0.113.7 again=true\n");
    assertThat(v6("/proxied", "X-Forwarded-For", "203.0.113.8"))
        .startsWith("ip=203.0.113.8 again=true\n");
    assertThat(v4("/proxied")).startsWith("ip=127.0.0.1 again=true\n");
  }

  @Test
  void theAuthAttributeWinsOverTheAccountHeader() throws Exception {
    assertThat(v4("/named?user=alice", "X-Acct", "mallory", "X-Dev", " phone-1 "))
        .endsWith("\naccount=<alice>\ndevice=<phone-1>\nattribute=<alice>");
  }

  @Test
  void withoutTheAttributeOrWithABlankOneTheAccountIsTheHeader() throws Exception {
    assertThat(v4("/named", "X-Acct", " bob "))
        .endsWith("\naccount=<bob>\ndevice=none\nattribute=none");
    assertThat(v4("/named?user=%20%20", "X-Acct", "bob"))
        .endsWith("\naccount=<bob>\ndevice=none\nattribute=<  >");
  }

  @Test
  void blankHeadersAreNoValue() throws Exception {
    assertThat(v4("/named?user=", "X-Acct", " ", "X-Dev", ""))
        .endsWith("\naccount=none\ndevice=none\nattribute=<>");
  }

  @Test
  void theDefaultHeadersAreTheAccountAndDeviceIds() throws Exception {
    assertThat(v4("/plain", "X-Account-Id", "acct-9", "X-Device-Id", "dev-9"))
        .endsWith("\naccount=<acct-9>\ndevice=<dev-9>\nattribute=none");
  }

  @Test
  void aDottedQuadIsFourCanonicalDecimalsUpTo255() {
    assertThat(ContextRequestInfo.isDottedQuad("9.99.199.249")).isTrue();
    assertThat(ContextRequestInfo.isDottedQuad("0.0.0.0")).isTrue();
    assertThat(ContextRequestInfo.isDottedQuad("255.255.255.256")).isFalse();
    assertThat(ContextRequestInfo.isDottedQuad("1.2.3.4.")).isFalse();
  }
}
