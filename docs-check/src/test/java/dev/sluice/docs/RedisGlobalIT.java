package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The redis-global example as its README runs it: two nodes from the jar its own build made, one
 * real Redis, four jobs sent two to each node. The limit of 2 holds across both nodes: two run, two
 * wait in their node's queue, and all four are answered 200.
 */
class RedisGlobalIT {

  private static final Pattern IN_FLIGHT = Pattern.compile("\"inFlight\":(\\d+)");
  private static final Pattern QUEUED = Pattern.compile("\"queued\":(\\d+)");

  private final List<Process> nodes = new ArrayList<>();
  private RedisServer redis;
  private final HttpClient client = HttpClient.newHttpClient();

  @AfterEach
  void stop() throws Exception {
    for (Process node : nodes) {
      node.destroy();
      node.waitFor();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void twoNodesShareOneLimitOfTwo() throws Exception {
    redis = RedisServer.start();
    String a = start(redis.uri());
    String b = start(redis.uri());
    // a node counts Redis as down until it has answered (each node then runs on its share, 1)
    await("both nodes on Redis")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> status(a).contains("\"state\":\"up\"") && status(b).contains("\"state\":\"up\""));

    List<CompletableFuture<HttpResponse<String>>> jobs = new ArrayList<>();
    for (String node : List.of(a, a, b, b)) {
      jobs.add(client.sendAsync(
          HttpRequest.newBuilder(URI.create(node + "/api/transcode?millis=4000"))
              .POST(HttpRequest.BodyPublishers.ofString("video"))
              .build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    await("two jobs running across both nodes, two queued")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> {
          int inFlight = sum(IN_FLIGHT, a, b);
          int queued = sum(QUEUED, a, b);
          System.out.println(
              "DEBUG " + inFlight + "/" + queued + " " + status(a) + " || " + status(b));
          return inFlight == 2 && queued == 2;
        });
    await("four answers")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> jobs.stream().allMatch(CompletableFuture::isDone));
    assertThat(jobs).allSatisfy(j -> assertThat(j.join().statusCode()).isEqualTo(200));
  }

  private int sum(Pattern field, String... nodes) throws Exception {
    int sum = 0;
    for (String node : nodes) {
      String status = status(node);
      Matcher m = field.matcher(status);
      assertThat(m.find()).as(status).isTrue();
      sum += Integer.parseInt(m.group(1));
    }
    return sum;
  }

  private String status(String node) throws Exception {
    return client
        .send(
            HttpRequest.newBuilder(URI.create(node + "/sluice")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private String start(URI redisUri) throws IOException {
    Path dir = Path.of(System.getProperty("examples.dir"), "redis-global");
    int port = freePort();
    ProcessBuilder builder = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            dir.resolve("target/redis-global.jar").toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("PORT", Integer.toString(port));
    builder.environment().put("SLUICE_REDIS_URI", redisUri.toString());
    // The example's 50 ms bound on a Redis call is for a production network; on a build machine
    // running several builds a call (the first ones load the scripts) can take longer, and a
    // call past its bound is decided on the node's share (1), which lets a third job run.
    builder.environment().put("SLUICE_REDIS_TIMEOUT", "2s");
    nodes.add(builder.start());
    String base = "http://127.0.0.1:" + port;
    await("node " + base + " answers")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> client
                .send(
                    HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode()
            == 200);
    return base;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
