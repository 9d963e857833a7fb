package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node in a JVM of its own, for {@link ClockFaultTest}, which runs it under libfaketime: it
 * decides one global token-bucket rule when asked on standard input, so that the test times each
 * decision on its own, unfaked clock. Arguments: Redis URI, rule id, limit, period in ms, burst,
 * decision timeout in ms. Lines in: {@code d} decide, {@code c} read the clocks, {@code q} quit.
 * Lines out (prefixed with {@code @ }, as the log shares standard output): {@code 1} or {@code 0}
 * for a decision, {@code <wall ms> <nanoTime>} for the clocks, and on quit the decisions this node
 * took on its local share.
 */
final class ClockedNode {

  static final String PREFIX = "@ ";

  private ClockedNode() {}

  public static void main(String[] args) throws Exception {
    Duration timeout = Duration.ofMillis(Long.parseLong(args[5]));
    RateRequest request = new RateRequest(
        args[1],
        "actor",
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(Long.parseLong(args[2]), Duration.ofMillis(Long.parseLong(args[3])))
            .withBurst(Long.parseLong(args[4])),
        1);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // FailurePolicy.DENY: a decision Redis did not make is a refusal, and counted as degraded
    try (RedisStores stores = RedisStores.open(new StoreSettings(
        URI.create(args[0]), timeout, 2, FailurePolicy.DENY, NanoClock.system()))) {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        switch (line) {
          case "d" -> {
            boolean allowed = stores
                .rates()
                .tryAcquire(List.of(request))
                .toCompletableFuture()
                .get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS)
                .get(0)
                .allowed();
            out.println(PREFIX + (allowed ? "1" : "0"));
          }
          case "c" -> out.println(PREFIX + System.currentTimeMillis() + " " + System.nanoTime());
          case "q" -> {
            out.println(PREFIX + stores.degradedDecisions());
            return;
          }
          default -> throw new IllegalArgumentException("unknown command: " + line);
        }
      }
    }
  }
}
