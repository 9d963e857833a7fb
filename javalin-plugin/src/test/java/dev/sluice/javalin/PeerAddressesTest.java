package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The peer address text {@link PeerAddresses} hands out: Jetty's own text, asked for once per
 * address; none is kept when there is none; the table starts afresh past its bound.
 */
class PeerAddressesTest {

  private final PeerAddresses peers = new PeerAddresses();
  private final AtomicInteger asked = new AtomicInteger();
  private Javalin app;

  @AfterEach
  void stop() {
    if (app != null) {
      app.stop();
    }
  }

  /** A request that knows its remote address and nothing else. */
  private static HttpServletRequest foreign(Supplier<String> remoteAddr) {
    return (HttpServletRequest) Proxy.newProxyInstance(
        PeerAddressesTest.class.getClassLoader(),
        new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getRemoteAddr" -> remoteAddr.get();
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  /** A foreign request answering {@code text}, counting how often it is asked. */
  private HttpServletRequest counting(String text) {
    return foreign(() -> {
      asked.incrementAndGet();
      return text;
    });
  }

  private static InetAddress address(int i) throws UnknownHostException {
    return InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
  }

  @Test
  void aJettyRequestsPeerIsJettysTextAskedForOncePerAddress() throws Exception {
    app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.jetty.addConnector((jetty, http) -> {
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        return connector;
      });
      config.routes.get("/peer", ctx -> {
        HttpServletRequest request = new HttpServletRequestWrapper(ctx.req()) {
          @Override
          public String getRemoteAddr() {
            asked.incrementAndGet();
            return super.getRemoteAddr();
          }
        };
        ctx.result(peers.of(request) + " " + asked.getAndSet(0));
      });
    });
    app.start();
    HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/peer"))
        .timeout(Duration.ofSeconds(20))
        .build();

    String first = client.send(get, HttpResponse.BodyHandlers.ofString()).body();
    String second = client.send(get, HttpResponse.BodyHandlers.ofString()).body();

    assertThat(first).isEqualTo("127.0.0.1 1");
    assertThat(second)
        .as("the address was seen: Jetty is not asked again")
        .isEqualTo("127.0.0.1 0");
  }

  @Test
  void anAddressKeepsTheTextFirstGivenForIt() throws Exception {
    assertThat(peers.of(address(1), counting("first"))).isEqualTo("first");
    assertThat(peers.of(address(1), counting("second"))).isEqualTo("first");
    assertThat(peers.of(address(2), counting("other"))).isEqualTo("other");
    assertThat(asked).hasValue(2);
  }

  @Test
  void noTextIsNullAndIsNotKept() throws Exception {
    assertThat(peers.of(address(1), counting(null))).isNull();
    assertThat(peers.of(address(1), counting("later"))).isEqualTo("later");
    assertThat(asked).hasValue(2);
  }

  @Test
  void theTableHoldsMaxAddressesAndStartsAfreshWithTheNext() throws Exception {
    for (int i = 0; i < PeerAddresses.MAX; i++) {
      peers.of(address(i), counting("a" + i));
    }
    assertThat(asked).hasValue(PeerAddresses.MAX);
    assertThat(peers.of(address(0), counting("again"))).as("all MAX are kept").isEqualTo("a0");
    assertThat(asked).hasValue(PeerAddresses.MAX);

    assertThat(peers.of(address(PeerAddresses.MAX), counting("new"))).isEqualTo("new");
    assertThat(peers.of(address(PeerAddresses.MAX), counting("newer"))).isEqualTo("new");
    assertThat(peers.of(address(0), counting("again"))).as("forgotten").isEqualTo("again");
    assertThat(asked).hasValue(PeerAddresses.MAX + 2);
  }
}
