package dev.sluice.loadtest.adaptive;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One way of limiting the transcode endpoint in the adaptive comparison: the demo service's
 * properties that select it. Each variant runs on a fresh demo service, so no learnt limit carries
 * over.
 *
 * @param name as on the command line ({@code --variants})
 * @param description for the report
 * @param limiterName the limiter in {@code /sluice} whose {@code limit} is charted
 * @param strategy the {@code strategy} that limiter must show in {@code /sluice} ({@code fixed},
 *     {@code cpu}, {@code latency}), or null for a peer
 * @param serverProperties {@code key=value} for the demo service
 */
public record AdaptiveVariant(
    String name,
    String description,
    String limiterName,
    String strategy,
    List<String> serverProperties) {

  static final String TRANSCODE = "sluice.limiters.transcode.";
  public static final String DEFAULT_NAMES = "fixed,cpu,latency,netflix-gradient2";

  /**
   * The variants by name.
   *
   * <ul>
   *   <li>{@code fixed}: the static limit of before, {@code round(0.7 x cores)} permits (the demo's
   *       {@code auto}), 504 after the queue timeout (no early rejection);
   *   <li>{@code cpu}: Sluice's CPU-target limit at 0.7 of this process's CPU (the load generator
   *       shares the machine, so the machine's CPU would count its work too), rejecting early;
   *   <li>{@code cpu-machine}: the same at 0.7 of the whole machine (the demo's default source; on a
   *       machine shared with the load generator it holds their sum);
   *   <li>{@code latency}: Sluice's gradient limit on service time, rejecting early;
   *   <li>{@code netflix-gradient2}, {@code netflix-vegas}: the demo's peer option, Netflix
   *       concurrency-limits in place of Sluice's transcode limiter (no queue: 429 at its limit).
   * </ul>
   *
   * @param cores the cores of the machine the demo runs on
   * @throws IllegalArgumentException naming the option, the value and the choices
   */
  public static List<AdaptiveVariant> parse(String option, String value, int cores) {
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .map(name -> switch (name) {
          case "fixed" ->
            new AdaptiveVariant(
                name,
                "static limit of " + fixedLimit(cores) + " (round(0.7 x " + cores
                    + " cores)), 504 after the queue timeout",
                "transcode",
                "fixed",
                List.of(
                    TRANSCODE + "limit=fixed",
                    TRANSCODE + "max-concurrency=" + fixedLimit(cores),
                    TRANSCODE + "reject-early=false"));
          case "cpu" ->
            new AdaptiveVariant(
                name,
                "limit=cpu, target-cpu=0.7 of the process, reject-early",
                "transcode",
                "cpu",
                List.of(
                    TRANSCODE + "limit=cpu",
                    TRANSCODE + "target-cpu=0.7",
                    TRANSCODE + "cpu-source=process",
                    TRANSCODE + "reject-early=true"));
          case "cpu-machine" ->
            new AdaptiveVariant(
                name,
                "limit=cpu, target-cpu=0.7 of the whole machine (the demo's default source), reject-early",
                "transcode",
                "cpu",
                List.of(
                    TRANSCODE + "limit=cpu",
                    TRANSCODE + "target-cpu=0.7",
                    TRANSCODE + "cpu-source=machine",
                    TRANSCODE + "reject-early=true"));
          case "latency" ->
            new AdaptiveVariant(
                name,
                "limit=latency (gradient on service time), reject-early",
                "transcode",
                "latency",
                List.of(TRANSCODE + "limit=latency", TRANSCODE + "reject-early=true"));
          case "netflix-gradient2", "netflix-vegas" ->
            new AdaptiveVariant(
                name,
                "Netflix concurrency-limits " + (name.endsWith("vegas") ? "Vegas" : "Gradient2")
                    + " (SimpleLimiter, no queue) in place of Sluice's limiter",
                name,
                null,
                List.of("demo.limiter-peer=" + name));
          default ->
            throw new IllegalArgumentException(option + " must be a comma list of "
                + "fixed, cpu, cpu-machine, latency, netflix-gradient2, netflix-vegas but was '"
                + value + "'");
        })
        .collect(Collectors.toList());
  }

  /** The demo's {@code auto} for a fixed limit: {@code max(1, round(0.7 x cores))}. */
  static int fixedLimit(int cores) {
    return Math.max(1, (int) Math.round(0.7 * cores));
  }

  /**
   * The {@code sluice.*} keys of this variant that the service must know (not warn about). A plugin
   * without adaptive limits behaves as {@code limit=fixed} and {@code reject-early=false}, so those
   * two settings are what they say even where they are unknown; any other unknown key means the
   * service is not running as this variant.
   */
  List<String> sluiceKeys() {
    return serverProperties.stream()
        .filter(p -> p.startsWith("sluice."))
        .filter(p ->
            !p.equals(TRANSCODE + "limit=fixed") && !p.equals(TRANSCODE + "reject-early=false"))
        .map(p -> p.substring(0, p.indexOf('=')))
        .toList();
  }
}
