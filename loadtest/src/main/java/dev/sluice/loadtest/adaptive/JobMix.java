package dev.sluice.loadtest.adaptive;

import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.engine.Workload;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The jobs of the adaptive comparison: one shape of transcode job per mix, sent by the 32
 * maintenance hosts at a multiple of what the machine can compute. A limit that is right for one
 * mix (a fixed number of permits) is wrong for the others, which is what the comparison shows.
 */
public enum JobMix {
  /** Today's jobs: 200 ms of CPU each. */
  CPU("200 ms CPU jobs", 200, 200, 0),
  /** Short and long jobs, half and half by count: 50 ms and 800 ms of CPU (425 ms on average). */
  SIZES("50 ms and 800 ms CPU jobs, half each", 50, 800, 0),
  /** Jobs that mostly wait on storage: 250 ms of waiting, then 50 ms of CPU. */
  IO("50 ms CPU + 250 ms storage wait", 50, 50, 250);

  /** The maintenance hosts, as in the Monday scenario. */
  static final int HOSTS = 32;

  private final String description;
  private final int shortCpuMillis;
  private final int longCpuMillis;
  private final int waitMillis;

  JobMix(String description, int shortCpuMillis, int longCpuMillis, int waitMillis) {
    this.description = description;
    this.shortCpuMillis = shortCpuMillis;
    this.longCpuMillis = longCpuMillis;
    this.waitMillis = waitMillis;
  }

  String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  String description() {
    return description;
  }

  /**
   * Parses the mixes named by an option.
   *
   * @param value {@code cpu}, {@code sizes}, {@code io}, a comma list of them, or {@code all}
   * @throws IllegalArgumentException naming the option, the value and the choices
   */
  public static List<JobMix> parse(String option, String value) {
    if (value.trim().equalsIgnoreCase("all")) {
      return List.of(values());
    }
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .map(id -> Arrays.stream(values())
            .filter(m -> m.id().equalsIgnoreCase(id))
            .findFirst()
            .orElseThrow(
                () -> new IllegalArgumentException(option + " must be all or a comma list of "
                    + Arrays.stream(values()).map(JobMix::id).collect(Collectors.joining(", "))
                    + " but was '" + value + "'")))
        .distinct()
        .toList();
  }

  /** CPU per job on average. */
  double meanCpuMillis() {
    return (shortCpuMillis + longCpuMillis) / 2.0;
  }

  /**
   * Jobs per second the machine computes at 100 % of its CPU: {@code cores x 1000 / mean CPU ms}
   * (the demo calibrates a job of N ms to N ms of CPU on an idle core).
   */
  double capacity(int cores) {
    return cores * 1000.0 / meanCpuMillis();
  }

  /** One job of the mix, drawn from the stream's seeded random. */
  String path(Random random) {
    int cpu =
        shortCpuMillis == longCpuMillis || random.nextBoolean() ? shortCpuMillis : longCpuMillis;
    return job(cpu);
  }

  private String job(int cpuMillis) {
    return "/api/transcode?cpuMillis=" + cpuMillis
        + (waitMillis > 0 ? "&waitMillis=" + waitMillis : "");
  }

  /**
   * The mix at {@code overload} times the capacity, tried once per request (no retries: the
   * offered load is exactly the multiple, and every latency is one try's).
   */
  Workload workload(double overload) {
    return new Workload(
        "adaptive/" + id(),
        (int) Math.round(meanCpuMillis()),
        job((int) Math.round(meanCpuMillis())),
        cores -> overload * capacity(cores),
        (rate, duration) -> streams(rate),
        1);
  }

  private List<TrafficStream> streams(double rate) {
    return List.of(TrafficStream.constant(
        "transcode",
        "POST",
        this::path,
        HOSTS,
        host ->
            Map.of("X-Account-Id", String.format(Locale.ROOT, "maintenance-host-%02d", host + 1)),
        rate));
  }
}
