package dev.sluice.loadtest.monday;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One way of guarding the transcode endpoint in the replay, as the demo properties that select it.
 * Every variant runs the ffmpeg engine on a fresh demo service and is offered the same requests
 * (every job declares its cost, whether the variant reads it or not); the demo's queue (fair by
 * {@code X-Host-Id}, priority classes from {@code X-Priority}) stays as it ships.
 *
 * @param name as on the command line ({@code --variants})
 * @param description for the report
 * @param properties {@code key=value} for the demo service
 */
public record MondayVariant(String name, String description, List<String> properties) {

  static final String TRANSCODE = "sluice.limiters.transcode.";
  /** The variants of a run without {@code --variants}. */
  public static final String DEFAULT_NAMES = "none,static,cpu,cpu+cost";

  /** The target of the CPU limit, as the scenario's fix held it. */
  static final double TARGET_CPU = 0.70;

  /** Whether it is the CPU-target limit the targets are about. */
  boolean cpuLimited() {
    return name.startsWith("cpu");
  }

  /** Whether it is a static limit (a reference for the throughput target). */
  boolean isStatic() {
    return name.startsWith("static");
  }

  /** Whether it runs without any limiter (the scenario's failure). */
  boolean unlimited() {
    return name.equals("none");
  }

  /**
   * The variants by name.
   *
   * <ul>
   *   <li>{@code none}: Sluice off ({@code sluice.enabled=false}): every job runs at once;
   *   <li>{@code static}: {@code limit=fixed} at {@code max(1, round(0.7 x cores))} permits, the
   *       demo's {@code auto}; {@code static-N} the same at N permits, to hand-tune it (several may
   *       run in one replay);
   *   <li>{@code cpu}: {@code limit=cpu}, {@code cpu-source=machine}, target 0.7, reject-early;
   *   <li>{@code cpu+cost}: {@code cpu} with {@code cost=header:X-Footage-Cost}, the cost each job
   *       declares from its clip's duration and height.
   * </ul>
   *
   * @param cores the cores of the machine the demo runs on
   * @throws IllegalArgumentException naming the option, the value and the choices
   */
  public static List<MondayVariant> parse(String option, String value, int cores) {
    Set<String> names = new LinkedHashSet<>();
    for (String part : value.split(",")) {
      names.add(part.trim());
    }
    List<MondayVariant> variants = new ArrayList<>();
    for (String name : names) {
      variants.add(of(option, value, name, cores));
    }
    return variants;
  }

  private static MondayVariant of(String option, String value, String name, int cores) {
    List<String> cpu = List.of(
        TRANSCODE + "limit=cpu",
        TRANSCODE + "cpu-source=machine",
        TRANSCODE + "target-cpu=" + TARGET_CPU,
        TRANSCODE + "reject-early=true");
    switch (name) {
      case "none" -> {
        return new MondayVariant(
            name, "no limiter (sluice.enabled=false)", List.of("sluice.enabled=false"));
      }
      case "static" -> {
        return fixed(
            name, Math.max(1, (int) Math.round(0.7 * cores)), "round(0.7 x " + cores + " cores)");
      }
      case "cpu" -> {
        return new MondayVariant(name, "limit=cpu, machine CPU target 70 %, reject-early", cpu);
      }
      case "cpu+cost" -> {
        List<String> withCost = new ArrayList<>(cpu);
        withCost.add(TRANSCODE + "cost=header:" + Clip.COST_HEADER);
        return new MondayVariant(
            name,
            "limit=cpu as cpu, each job weighted by its declared cost (" + Clip.COST_HEADER + ")",
            withCost);
      }
      default -> {
        if (name.matches("static-[1-9][0-9]{0,2}")) {
          return fixed(name, Integer.parseInt(name.substring("static-".length())), "hand-tuned");
        }
        throw new IllegalArgumentException(
            option + " must be a comma list of none, static, static-N"
                + " (N permits), cpu, cpu+cost but was '" + value + "'");
      }
    }
  }

  private static MondayVariant fixed(String name, int permits, String why) {
    return new MondayVariant(
        name,
        "static limit of " + permits + " (" + why + "), 504 after the queue timeout",
        List.of(
            TRANSCODE + "limit=fixed",
            TRANSCODE + "max-concurrency=" + permits,
            TRANSCODE + "reject-early=false"));
  }

  /** Every property for the demo: the ffmpeg engine, then the variant's own. */
  List<String> serverProperties() {
    List<String> all = new ArrayList<>(List.of("demo.engine=ffmpeg"));
    all.addAll(properties);
    return all;
  }
}
