package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.engine.TrafficStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.Collectors;

/**
 * The jobs of the overload sweep: short ones, long ones, or two sizes half and half by count. Each
 * request says its size ({@code X-Job-Size}) and its declared cost ({@code X-Cost}: its CPU over the
 * kind's shortest job's), whatever the variant reads, so every variant is offered the very same
 * requests.
 */
public enum JobKind {
  /** About 20 ms of CPU: where queueing delay dwarfs the service time. */
  SHORT("20 ms CPU jobs", List.of(Size.SHORT)),
  /** About 200 ms of CPU: today's jobs. */
  LONG("200 ms CPU jobs", List.of(Size.LONG)),
  /** 20 ms and 200 ms jobs, half each by count (110 ms on average): what cost-aware admission is for. */
  SIZES("20 ms and 200 ms CPU jobs, half each", List.of(Size.SHORT, Size.LONG)),
  /**
   * 50 ms and 800 ms jobs, half each by count (425 ms on average): the adaptive comparison's {@code
   * sizes} mix, where a limit counting jobs swung the CPU by 18.9 points (sd) second to second, one
   * 800 ms job being 40 % of a second of a 2-core machine.
   */
  WIDE("50 ms and 800 ms CPU jobs, half each", List.of(Size.SMALL, Size.HUGE)),
  /**
   * About 400 ms of CPU: the calls of the gRPC door's overload requirement (not in the default
   * list, so {@code --jobs} without it runs what it always ran).
   */
  LONG400("400 ms CPU jobs", List.of(Size.LONG400));

  /** The kinds run when {@code --jobs} is not given. */
  static final List<JobKind> DEFAULTS = List.of(SHORT, LONG, SIZES, WIDE);

  /** Header naming a request's size; the queue key of the learned-cost variant. */
  static final String SIZE_HEADER = "X-Job-Size";
  /** Header with a request's declared cost in units of the short job. */
  static final String COST_HEADER = "X-Cost";
  /** The maintenance hosts, as in the other scenarios. */
  static final int HOSTS = 32;

  /** One size of job. */
  enum Size {
    SHORT(20),
    LONG(200),
    SMALL(50),
    HUGE(800),
    LONG400(400);

    final int cpuMillis;

    Size(int cpuMillis) {
      this.cpuMillis = cpuMillis;
    }

    String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    String path() {
      return "/api/transcode?cpuMillis=" + cpuMillis;
    }

    /** The size of this id ({@link #id()}), if any. */
    static Optional<Size> of(String id) {
      return Arrays.stream(values()).filter(s -> s.id().equals(id)).findFirst();
    }
  }

  /** A size's CPU in units of the kind's shortest job: what the client declares. */
  int cost(Size size) {
    return Math.max(1, Math.round(size.cpuMillis / (float) shortestCpuMillis()));
  }

  /** The costliest size's {@link #cost}. */
  int costliest() {
    return sizes.stream().mapToInt(this::cost).max().orElse(1);
  }

  private final String description;

  @SuppressWarnings("ImmutableEnumChecker") // always a List.of, which cannot change
  private final List<Size> sizes;

  JobKind(String description, List<Size> sizes) {
    this.description = description;
    this.sizes = sizes;
  }

  String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind of this id, if any. */
  static Optional<JobKind> of(String id) {
    return Arrays.stream(values()).filter(k -> k.id().equals(id)).findFirst();
  }

  String description() {
    return description;
  }

  List<Size> sizes() {
    return sizes;
  }

  /** More than one size: the only kind on which a cost per request can differ. */
  boolean mixed() {
    return sizes.size() > 1;
  }

  /** CPU per job on average. */
  double meanCpuMillis() {
    return sizes.stream().mapToInt(s -> s.cpuMillis).average().orElseThrow();
  }

  /** The shortest job's CPU. */
  int shortestCpuMillis() {
    return sizes.stream().mapToInt(s -> s.cpuMillis).min().orElseThrow();
  }

  /**
   * Parses the job kinds named by an option.
   *
   * @param value {@code short}, {@code long}, {@code sizes}, {@code wide}, {@code long400} or a
   *     comma list of them
   * @throws IllegalArgumentException naming the option, the value and the choices
   */
  public static List<JobKind> parse(String option, String value) {
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .map(id -> Arrays.stream(values())
            .filter(k -> k.id().equalsIgnoreCase(id))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException(option + " must be a comma list of "
                + Arrays.stream(values()).map(JobKind::id).collect(Collectors.joining(", "))
                + " but was '" + value + "'")))
        .distinct()
        .toList();
  }

  /**
   * The kind's traffic at {@code rate(t)} jobs per second in all, no more than {@code peakRate}: one
   * Poisson stream per size at an equal share (two independent streams of half the rate are one
   * stream of the whole rate, split at random), from the 32 maintenance hosts.
   */
  List<TrafficStream> streams(DoubleUnaryOperator rate, double peakRate) {
    double share = 1.0 / sizes.size();
    return sizes.stream()
        .map(size -> new TrafficStream(
            size.id(),
            "POST",
            random -> size.path(),
            HOSTS,
            host -> Map.of(
                "X-Account-Id",
                String.format(Locale.ROOT, "maintenance-host-%02d", host + 1),
                SIZE_HEADER,
                size.id(),
                COST_HEADER,
                Integer.toString(cost(size))),
            t -> share * rate.applyAsDouble(t),
            share * peakRate))
        .toList();
  }

  /** A request path of the kind for the calibration and the capacity probe, the {@code n}th. */
  String path(int n) {
    return sizes.get(n % sizes.size()).path();
  }
}
