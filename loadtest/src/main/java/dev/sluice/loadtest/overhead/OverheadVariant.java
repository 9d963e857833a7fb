package dev.sluice.loadtest.overhead;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One service set-up of the overhead run: the demo with a given limiter (or none) in front of its
 * light endpoint {@code GET /api/ping}. Every limiter is set so high it never rejects, so the run
 * measures what asking costs.
 *
 * @param name short id, in the JSON and the table
 * @param description what guards the endpoint
 * @param serverProperties the {@code -D} properties of the demo's child JVM
 * @param classPath the child JVM's class path: empty for this build, else an earlier build's jar
 */
record OverheadVariant(
    String name, String description, List<String> serverProperties, Optional<Path> classPath) {

  /** What a variant run from {@code --before-jar} adds to its name. */
  static final String BEFORE_SUFFIX = "@before";

  OverheadVariant(String name, String description, List<String> serverProperties) {
    this(name, description, serverProperties, Optional.empty());
  }

  static final String ENDPOINT = "/api/ping";

  /** The baseline every ratio is taken against; first in {@link #all}. */
  static final String BASELINE = "none";

  /**
   * Writes the one rate rule of the {@code sluice-rate} variant: a per-IP token bucket, as a user
   * puts in front of a public endpoint; every request of the run comes from 127.0.0.1, so the limit
   * is set far above what two cores serve.
   */
  static void writeRules(Path rulesFile) throws IOException {
    Files.writeString(
        rulesFile,
        String.join(
            "\n",
            "rules:",
            "  - id: ping-per-ip",
            "    resource: " + ENDPOINT,
            "    method: GET",
            "    actor: ip",
            "    limit: 1000000000",
            "    unit: second",
            "    algorithm: token-bucket",
            "    scope: local",
            ""));
  }

  /**
   * The seven set-ups, the baseline first; the last is no limiter but the empty handlers a limiting
   * plugin hooks in, Javalin's own share of any plugin's cost.
   *
   * @param rulesFile where {@link #writeRules} writes the rule the {@code sluice-rate} variant reads
   */
  static List<OverheadVariant> all(Path rulesFile) {
    return List.of(
        new OverheadVariant(BASELINE, "no limiter", List.of("sluice.enabled=false")),
        new OverheadVariant(
            "sluice-limiter",
            "Sluice, concurrency limiter on the path, never full",
            List.of(
                "sluice.enabled=true",
                "sluice.limiters.ping.path=" + ENDPOINT,
                "sluice.limiters.ping.max-concurrency=10000")),
        new OverheadVariant(
            "sluice-rate",
            "Sluice, per-IP token-bucket rule, never empty",
            List.of("sluice.enabled=true", "sluice.rules.file=" + rulesFile.toAbsolutePath())),
        new OverheadVariant(
            "sluice-rate-bare",
            "Sluice, the same rule with no rate-limit headers on its answers",
            List.of(
                "sluice.enabled=true",
                "sluice.rules.file=" + rulesFile.toAbsolutePath(),
                "sluice.headers.ratelimit=false",
                "sluice.headers.x-ratelimit=false")),
        new OverheadVariant(
            "ratelimitplugin",
            "Javalin RateLimitPlugin, 10^9 per minute",
            List.of("sluice.enabled=false", "demo.overhead-peer=ratelimitplugin")),
        new OverheadVariant(
            "qos",
            "Jetty QoSHandler, maxRequestCount 10000",
            List.of("sluice.enabled=false", "demo.overhead-peer=qos")),
        new OverheadVariant(
            "javalin-handlers",
            "no limiter: three empty Javalin handlers (before, before-matched, after)",
            List.of("sluice.enabled=false", "demo.overhead-peer=handlers")));
  }

  /**
   * The variants a run measures: those {@code --variants} names (a comma list; the baseline is
   * always measured, first), or all; then, with {@code --before-jar}, each Sluice variant again
   * from that jar, named {@code NAME@before}, so a change is judged against the build before it in
   * the same run.
   *
   * @param all {@link #all}
   * @param names {@code --variants}, if given
   * @param beforeJar {@code --before-jar}, if given
   * @throws IllegalArgumentException naming an unknown variant and the known ones, or a jar that is
   *     not a readable file
   */
  static List<OverheadVariant> select(
      List<OverheadVariant> all, Optional<String> names, Optional<Path> beforeJar) {
    List<OverheadVariant> chosen = new ArrayList<>();
    chosen.add(all.get(0));
    if (names.isPresent()) {
      for (String name : Arrays.stream(names.get().split(","))
          .map(String::trim)
          .filter(n -> !n.isEmpty())
          .distinct()
          .toList()) {
        OverheadVariant variant = all.stream()
            .filter(v -> v.name().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("--variants: unknown overhead variant '"
                + name + "'; known: "
                + all.stream().map(OverheadVariant::name).collect(Collectors.joining(", "))));
        if (!chosen.contains(variant)) {
          chosen.add(variant);
        }
      }
    } else {
      chosen.addAll(all.subList(1, all.size()));
    }
    if (beforeJar.isPresent()) {
      Path jar = beforeJar.get();
      if (!Files.isRegularFile(jar) || !Files.isReadable(jar)) {
        throw new IllegalArgumentException(
            "--before-jar must be a readable jar file (an earlier loadtest.jar) but was '" + jar
                + "'");
      }
      for (OverheadVariant variant : List.copyOf(chosen)) {
        if (variant.name().startsWith("sluice-")) {
          chosen.add(new OverheadVariant(
              variant.name() + BEFORE_SUFFIX,
              variant.description() + ", from " + jar.getFileName(),
              variant.serverProperties(),
              Optional.of(jar.toAbsolutePath())));
        }
      }
    }
    return List.copyOf(chosen);
  }
}
