package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request info the rules decide from is one per server thread, taken by its requests in turn:
 * many clients at once, in a random order, must each be counted against their own key, never a
 * neighbour's. The clock stands still, so a bucket never refills and the counts are exact.
 */
@Tag("integration")
class RequestInfoReuseTest {

  private static final int CLIENTS = 8;
  private static final int PER_CLIENT = 24;
  private static final int LIMIT = 10;
  private static final int IN_FLIGHT = 16;

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

  @Test
  void concurrentRequestsAreEachDecidedOnTheirOwnKey() throws Exception {
    Path rules = dir.resolve("ratelimits.yaml");
    Files.writeString(
        rules,
        String.join(
            "\n",
            "rules:",
            "  - id: per-client",
            "    resource: /api/echo",
            "    actor: header:X-Client",
            "    limit: " + LIMIT,
            "    unit: hour",
            ""));
    Map<String, String> system = new HashMap<>();
    system.put("sluice.rules.file", rules.toString());
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time),
        (app, plugin) ->
            app.routes.get("/api/echo", ctx -> ctx.result(String.valueOf(ctx.header("X-Client")))));

    long seed = new Random().nextLong();
    Random random = new Random(seed);
    List<String> order = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      for (int i = 0; i < PER_CLIENT; i++) {
        order.add("client-" + c);
      }
    }
    Collections.shuffle(order, random);

    List<String> clients = new ArrayList<>();
    List<HttpResponse<String>> answers = new ArrayList<>();
    for (int from = 0; from < order.size(); from += IN_FLIGHT) {
      List<String> batch = order.subList(from, Math.min(order.size(), from + IN_FLIGHT));
      List<CompletableFuture<HttpResponse<String>>> sent = batch.stream()
          .map(client -> server.getAsync("/api/echo", "X-Client", client))
          .toList();
      clients.addAll(batch);
      sent.forEach(f -> answers.add(f.join()));
    }

    for (int c = 0; c < CLIENTS; c++) {
      String client = "client-" + c;
      List<HttpResponse<String>> own = IntStream.range(0, clients.size())
          .filter(i -> clients.get(i).equals(client))
          .mapToObj(answers::get)
          .toList();
      List<HttpResponse<String>> admitted =
          own.stream().filter(r -> r.statusCode() == 200).toList();
      assertThat(admitted).as("%s admitted (seed %d)", client, seed).hasSize(LIMIT);
      assertThat(own.stream().filter(r -> r.statusCode() == 429).count())
          .as("%s refused (seed %d)", client, seed)
          .isEqualTo(PER_CLIENT - LIMIT);
      assertThat(admitted).allSatisfy(r -> assertThat(r.body()).isEqualTo(client));
      // each of its own bucket's counts once: LIMIT - 1 down to 0
      List<Integer> remaining = admitted.stream()
          .map(r ->
              Integer.parseInt(r.headers().firstValue(RateHeaders.X_REMAINING).orElseThrow()))
          .toList();
      List<Integer> expected = IntStream.range(0, LIMIT).boxed().toList();
      assertThat(remaining)
          .as("%s remaining counts (seed %d)", client, seed)
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }
}
