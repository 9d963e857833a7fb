package dev.sluice.loadtest.overhead;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One service set-up of the overhead run: the demo with a given limiter (or none) in front of its
 * light endpoint {@code GET /api/ping}. Every limiter is set so high it never rejects, so the run
 * measures what asking costs.
 *
 * @param name short id, in the JSON and the table
 * @param description what guards the endpoint
 * @param serverProperties the {@code -D} properties of the demo's child JVM
 */
record OverheadVariant(String name, String description, List<String> serverProperties) {

  static final String ENDPOINT = "/api/ping";

  /** The baseline every ratio is taken against; first in {@link #all}. */
  static final String BASELINE = "none";

  /**
   * The five set-ups, the baseline first.
   *
   * @param rulesFile where to write the one rate rule of the {@code sluice-rate} variant
   */
  static List<OverheadVariant> all(Path rulesFile) throws IOException {
    // a per-IP token bucket, as a user puts in front of a public endpoint; every request of the
    // run comes from 127.0.0.1, so the limit is set far above what two cores serve
    Files.writeString(rulesFile, String.join("\n", "rules:",
        "  - id: ping-per-ip", "    resource: " + ENDPOINT, "    method: GET",
        "    actor: ip", "    limit: 1000000000", "    unit: second",
        "    algorithm: token-bucket", "    scope: local", ""));
    return List.of(
        new OverheadVariant(BASELINE, "no limiter", List.of("sluice.enabled=false")),
        new OverheadVariant("sluice-limiter", "Sluice, concurrency limiter on the path, never full",
            List.of("sluice.enabled=true", "sluice.limiters.ping.path=" + ENDPOINT,
                "sluice.limiters.ping.max-concurrency=10000")),
        new OverheadVariant("sluice-rate", "Sluice, per-IP token-bucket rule, never empty",
            List.of("sluice.enabled=true", "sluice.rules.file=" + rulesFile.toAbsolutePath())),
        new OverheadVariant("ratelimitplugin", "Javalin RateLimitPlugin, 10^9 per minute",
            List.of("sluice.enabled=false", "demo.overhead-peer=ratelimitplugin")),
        new OverheadVariant("qos", "Jetty QoSHandler, maxRequestCount 10000",
            List.of("sluice.enabled=false", "demo.overhead-peer=qos")));
  }
}
