package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code /health} is what a prober (a load balancer, the load test) waits on before it sends work
 * to either door: while the service starts, it answers "up" only once the gRPC door accepts too.
 */
@Tag("integration")
class HealthReadinessHttpTest {

  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .build();

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return s.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void healthSaysUpOnlyOnceTheGrpcDoorAcceptsToo() throws Exception {
    int httpPort = freePort();
    int grpcPort = freePort();
    URI health = URI.create("http://127.0.0.1:" + httpPort + "/health");
    // a prober asks /health over and over while the service starts; on each "up" it connects to
    // the gRPC door at once
    List<String> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean probing = new AtomicBoolean(true);
    CompletableFuture<Void> prober = CompletableFuture.runAsync(() -> {
      while (probing.get()) {
        try {
          HttpResponse<String> r = HTTP.send(
              HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            seen.add("up, gRPC " + (accepts(grpcPort) ? "accepts" : "refuses"));
          } else {
            seen.add(r.statusCode() + " " + r.body());
          }
        } catch (IOException e) {
          // the HTTP server is not listening yet: ask again in a millisecond
          LockSupport.parkNanos(1_000_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    });
    try (TranscodeService service = TranscodeService.start(DemoSettings.load(
        new String[0],
        Map.of(),
        Map.of(
            "server.port", Integer.toString(httpPort),
            "demo.grpc.port", Integer.toString(grpcPort),
            "demo.frames-per-milli", "0.5"),
        2))) {
      assertThat(service.grpcPort()).isEqualTo(grpcPort);
      HttpResponse<String> up =
          HTTP.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(up.body()).isEqualTo("{\"status\":\"up\"}");
      // the prober stops before the service does: a stopping service is not what it checks
      probing.set(false);
      prober.get(10, TimeUnit.SECONDS);
    } finally {
      probing.set(false);
    }
    assertThat(seen)
        .as("every 'up' the prober saw while the service started")
        .allSatisfy(
            answer -> assertThat(answer).isIn("up, gRPC accepts", "503 {\"status\":\"starting\"}"));
  }
}
