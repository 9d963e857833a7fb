package dev.sluice.loadtest.overload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One way of guarding {@code /api/transcode} in the overload sweep: the demo's {@code -D}
 * properties that select it, and what {@code /sluice} must show for the run to count as this
 * variant. Each runs on a fresh demo, so nothing learnt carries over.
 *
 * @param name as on the command line ({@code --variants})
 * @param description for the report
 * @param limiterName the limiter in {@code /sluice} that guards the endpoint
 * @param queueKind {@code fifo} or {@code fair} as {@code /sluice} must show it, or null for a peer
 * @param standing whether {@code /sluice} must show a {@code queueDelayTarget}
 * @param serverProperties {@code key=value} for the demo
 */
public record OverloadVariant(
    String name,
    String description,
    String limiterName,
    String queueKind,
    boolean standing,
    List<String> serverProperties) {

  static final String TRANSCODE = "sluice.limiters.transcode.";
  /** Every name {@code --variants} knows, in the order they run. */
  static final List<String> NAMES = List.of(
      "fifo", "standing", "cost-declared", "cost-learned", "netflix-gradient2", "netflix-vegas");

  /**
   * Today's default limiter, with the demo's queue set to one FIFO: a CPU-target limit at 0.7 of the
   * service's own process (the load generator shares the machine, whose CPU would count its work),
   * rejecting early on the predicted wait, the demo's 40 places and 10 s queue timeout. The demo's
   * fair-queue key, per-key cap and classes are cleared: the plugin refuses them with a FIFO queue.
   */
  private static List<String> fifo() {
    return List.of(
        TRANSCODE + "limit=cpu",
        TRANSCODE + "target-cpu=0.7",
        TRANSCODE + "cpu-source=process",
        TRANSCODE + "reject-early=true",
        TRANSCODE + "queue=fifo",
        TRANSCODE + "queue-key=",
        TRANSCODE + "max-queue-per-key=0",
        TRANSCODE + "priority-header=");
  }

  /**
   * The queue-delay target of the standing variant: one service time of the kind's shortest job, at
   * most 100 ms. An admitted job then waits at most about its own service time, so its latency stays
   * near twice the unloaded one, which is the aim; 100 ms (the usual example) is five short jobs'
   * service time and could not meet it for 20 ms jobs. The interval over which the queue must drain
   * stays max(100 ms, target) = 100 ms, as in Facebook's adaptive LIFO with CoDel.
   */
  static Duration standingTarget(JobKind kind) {
    return Duration.ofMillis(Math.min(100, kind.shortestCpuMillis()));
  }

  /**
   * The variant of this name for this kind of job.
   *
   * @throws IllegalArgumentException naming the option, the value and the choices
   */
  static OverloadVariant of(String option, String name, JobKind kind) {
    List<String> properties = new ArrayList<>(fifo());
    return switch (name) {
      case "fifo" ->
        new OverloadVariant(
            name,
            "limit=cpu (0.7 of the process), reject-early, one FIFO queue: today's default",
            "transcode",
            "fifo",
            false,
            properties);
      case "standing" -> {
        Duration target = standingTarget(kind);
        properties.add(TRANSCODE + "queue-delay-target=" + target.toMillis() + "ms");
        yield new OverloadVariant(
            name,
            "fifo with queue-delay-target=" + target.toMillis()
                + "ms (newest first and shed at the target once the queue stands)",
            "transcode",
            "fifo",
            true,
            properties);
      }
      case "cost-declared" -> {
        properties.add(TRANSCODE + "cost=header:" + JobKind.COST_HEADER);
        yield new OverloadVariant(
            name,
            "fifo with cost=header:" + JobKind.COST_HEADER
                + " (the client declares its CPU over the short job's)",
            "transcode",
            "fifo",
            false,
            properties);
      }
      case "cost-learned" -> {
        properties.removeIf(p -> p.startsWith(TRANSCODE + "queue"));
        properties.add(TRANSCODE + "queue=fair");
        properties.add(TRANSCODE + "queue-key=header:" + JobKind.SIZE_HEADER);
        properties.add(TRANSCODE + "cost=learned");
        yield new OverloadVariant(
            name,
            "cost=learned per queue key, queue=fair keyed by " + JobKind.SIZE_HEADER,
            "transcode",
            "fair",
            false,
            properties);
      }
      case "netflix-gradient2", "netflix-vegas" ->
        new OverloadVariant(
            name,
            "Netflix concurrency-limits " + (name.endsWith("vegas") ? "Vegas" : "Gradient2")
                + " (SimpleLimiter, no queue, 429 at its limit) in place of Sluice's limiter",
            name,
            null,
            false,
            List.of("demo.limiter-peer=" + name));
      default ->
        throw new IllegalArgumentException(option + " must be a comma list of "
            + String.join(", ", NAMES) + " but was '" + name + "'");
    };
  }

  /**
   * This variant on a machine of {@code cores} running {@code kind}: with declared costs the limit
   * and its ceiling count units, so the demo's ceiling of 8 jobs a core becomes 8 of the kind's
   * costliest a core. Left in jobs, it would admit one 200 ms job (cost 10) at a time on 2 cores
   * (16 units) and hold the CPU near one core's worth, under the target, whatever the controller
   * wants: the run would measure the ceiling, not the cost.
   */
  OverloadVariant onMachine(JobKind kind, int cores) {
    if (!name.equals("cost-declared")) {
      return this;
    }
    int costliest = kind.costliest();
    List<String> properties = new ArrayList<>(serverProperties);
    properties.add(TRANSCODE + "max-concurrency=" + 8 * Math.max(1, cores) * costliest);
    return new OverloadVariant(
        name,
        description + "; max-concurrency=" + 8 * costliest + " x cores (units)",
        limiterName,
        queueKind,
        standing,
        List.copyOf(properties));
  }

  /** Checks a {@code --variants} value without building anything. */
  static void check(String option, String value) {
    names(value).forEach(name -> of(option, name, JobKind.SHORT));
  }

  /**
   * The variants a kind runs: those named, or without {@code --variants} the kind's defaults
   * (FIFO, the standing queue for a single size, the two costs for mixed sizes, and Gradient2).
   * A cost variant is left out for a single size: every job costs the same there, so it would be
   * FIFO run twice.
   */
  static List<OverloadVariant> forKind(String option, String value, JobKind kind) {
    List<String> names = value == null
        ? (kind.mixed()
            ? List.of("fifo", "cost-declared", "cost-learned", "netflix-gradient2")
            : List.of("fifo", "standing", "netflix-gradient2"))
        : names(value);
    return names.stream()
        .filter(n -> kind.mixed() || !n.startsWith("cost-"))
        .map(n -> of(option, n, kind))
        .toList();
  }

  private static List<String> names(String value) {
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .distinct()
        .collect(Collectors.toList());
  }

  /** The {@code sluice.*} keys the service must know; one it logs as unknown means another variant ran. */
  List<String> sluiceKeys() {
    return serverProperties.stream()
        .filter(p -> p.startsWith("sluice."))
        .map(p -> p.substring(0, p.indexOf('=')))
        .toList();
  }

  /**
   * Why the service is not running as this variant, from its {@code /sluice}: the guarding limiter
   * is missing, or shows another limit, queue or no queue-delay target.
   */
  Optional<String> mismatch(String sluiceBody) {
    JsonNode limiter = null;
    try {
      for (JsonNode l : new ObjectMapper().readTree(sluiceBody).path("limiters")) {
        if (limiterName.equals(l.path("name").asText())) {
          limiter = l;
        }
      }
    } catch (IOException notJson) {
      return Optional.of("/sluice did not answer JSON: " + notJson.getMessage());
    }
    if (limiter == null) {
      return Optional.of("/sluice lists no limiter " + limiterName);
    }
    if (queueKind == null) {
      return Optional.empty(); // a peer: present is all /sluice can say
    }
    if (!"cpu".equals(limiter.path("limitKind").asText())) {
      return Optional.of("limiter " + limiterName + " runs limit "
          + limiter.path("limitKind").asText() + ", not cpu");
    }
    if (!queueKind.equals(limiter.path("queueKind").asText())) {
      return Optional.of("limiter " + limiterName + " has a "
          + limiter.path("queueKind").asText() + " queue, not " + queueKind);
    }
    if (standing != limiter.path("queueDelayTarget").isTextual()) {
      return Optional.of(
          "limiter " + limiterName + " shows queueDelayTarget " + limiter.path("queueDelayTarget")
              + (standing ? ", not the variant's" : ", which it should not"));
    }
    return Optional.empty();
  }
}
