package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.sampling.ServerSample;
import dev.sluice.loadtest.sampling.Spread;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * What one run shows over a window of it, from every answer and the server's once-a-second
 * samples: the figures the papers judge overload control by.
 *
 * @param from start of the window, seconds into the run
 * @param to end of the window
 * @param counts every request of the run by outcome
 * @param goodputPerSecond 2xx answers per second in the window
 * @param goodputOfCapacity goodput over the unloaded capacity (100 % CPU)
 * @param goodputOfTarget goodput over the capacity at the 70 % CPU target
 * @param workOfTarget the work done (the CPU milliseconds the finished jobs asked for) over the
 *     work the capacity at the target does with the kind's mix: goodput that does not count a small
 *     job as much as a large one. The same as {@code goodputOfTarget} for a single size; with
 *     mixed sizes a limiter that favours small jobs (costs) raises the count, not the work
 * @param admitted latency of the 2xx answers of requests sent in the window
 * @param admittedP99OverUnloaded admitted p99 over the unloaded p99
 * @param admittedP99BySize admitted p99 per job size (ms)
 * @param rejectedP50Millis time to a 429 of requests sent in the window, median
 * @param rejectedP95Millis the same, 95th percentile
 * @param rejectedWithin50Share share of the window's rejections (429, 503, 504) answered within 50 ms
 * @param reasons the run's rejections by status and reason, e.g. {@code 429 standing_queue}
 * @param processCpu the service's CPU, percent of the machine, one reading a second in the window
 * @param machineCpu the whole machine's CPU (load generator and other work included)
 * @param limit the guarding limiter's limit from {@code /sluice} in the window
 * @param jobCpuMillis the mean CPU the window's finished jobs' work took, as the service reports
 *     it (NaN when it does not): above the kind's mean CPU, each job cost more than unloaded
 * @param jobsShareOfCpu the part of the service's CPU in the window spent in its jobs' work (the
 *     rest: HTTP, answering rejections, the limiter, GC); NaN when either is unknown
 */
public record RunFigures(
    double from,
    double to,
    Counts counts,
    double goodputPerSecond,
    double goodputOfCapacity,
    double goodputOfTarget,
    double workOfTarget,
    Latency admitted,
    double admittedP99OverUnloaded,
    Map<String, Double> admittedP99BySize,
    double rejectedP50Millis,
    double rejectedP95Millis,
    double rejectedWithin50Share,
    Map<String, Long> reasons,
    Spread processCpu,
    Spread machineCpu,
    Spread limit,
    double jobCpuMillis,
    double jobsShareOfCpu) {

  /** A rejection this fast counts as "at once" (the aim: 95 % of them). */
  static final double FAST_REJECTION_MILLIS = 50;

  /**
   * The counts of one run.
   *
   * @param sent requests sent (each tried once)
   * @param ok answered 2xx
   * @param rejected answered 429
   * @param serverErrors answered 5xx (504 and 503 included)
   * @param other I/O errors, other statuses, and requests the drain left unanswered
   */
  public record Counts(long sent, long ok, long rejected, long serverErrors, long other) {}

  /** A latency distribution in milliseconds (nearest rank); NaN when empty. */
  public record Latency(int n, double p50, double p99) {
    static Latency of(List<Double> values) {
      List<Double> sorted = new ArrayList<>(values);
      Collections.sort(sorted);
      return new Latency(sorted.size(), rank(sorted, 0.50), rank(sorted, 0.99));
    }
  }

  /**
   * @param answers every answered request of the run
   * @param sent requests sent, answered or not
   * @param samples the server's samples
   * @param from start of the window (seconds into the run)
   * @param to end of the window
   * @param capacity the kind's unloaded capacity and latency
   * @param limiterName the limiter whose limit is read
   */
  static RunFigures of(
      List<Answer> answers,
      long sent,
      List<ServerSample> samples,
      double from,
      double to,
      Capacity capacity,
      String limiterName) {
    long ok = answers.stream().filter(Answer::admitted).count();
    long rejected = answers.stream().filter(a -> a.status() == 429).count();
    long serverErrors = answers.stream().filter(Answer::serverError).count();
    Counts counts =
        new Counts(sent, ok, rejected, serverErrors, sent - ok - rejected - serverErrors);

    double seconds = to - from;
    // the jobs finished in the window, by when they were answered
    List<Answer> finished = answers.stream()
        .filter(a -> a.admitted() && a.answeredAt() >= from && a.answeredAt() < to)
        .toList();
    double goodput = seconds > 0 ? finished.size() / seconds : Double.NaN;
    double kindMean = JobKind.of(capacity.kind()).map(JobKind::meanCpuMillis).orElse(Double.NaN);
    double askedMillis = finished.stream()
        .mapToDouble(
            a -> JobKind.Size.of(a.size()).map(z -> (double) z.cpuMillis).orElse(kindMean))
        .sum();
    double work =
        seconds > 0 ? askedMillis / seconds / (capacity.atTarget() * kindMean) : Double.NaN;

    Predicate<Answer> inWindow = a -> a.sentAt() >= from && a.sentAt() < to;
    Latency admitted = Latency.of(latencies(answers, inWindow.and(Answer::admitted)));
    Map<String, Double> bySize = new TreeMap<>();
    answers.stream()
        .map(Answer::size)
        .distinct()
        .forEach(size -> bySize.put(
            size,
            Latency.of(latencies(
                    answers, inWindow.and(Answer::admitted).and(a -> a.size().equals(size))))
                .p99()));
    List<Double> toReject =
        new ArrayList<>(latencies(answers, inWindow.and(a -> a.status() == 429)));
    Collections.sort(toReject);
    List<Double> rejections = latencies(answers, inWindow.and(Answer::rejected));
    double fastShare = rejections.isEmpty()
        ? Double.NaN
        : rejections.stream().filter(ms -> ms <= FAST_REJECTION_MILLIS).count()
            / (double) rejections.size();

    Map<String, Long> reasons = new TreeMap<>();
    answers.stream()
        .filter(a -> !a.admitted())
        .forEach(a -> reasons.merge(
            (a.status() == Answer.IO_ERROR ? "io-error" : Integer.toString(a.status()))
                + (a.reason() == null ? "" : " " + a.reason()),
            1L,
            Long::sum));

    double[] jobCpu = finished.stream()
        .mapToDouble(Answer::jobCpuMillis)
        .filter(ms -> ms >= 0)
        .toArray();
    double jobCpuMean =
        jobCpu.length == 0 ? Double.NaN : Arrays.stream(jobCpu).average().orElseThrow();

    List<Double> cpu = new ArrayList<>();
    List<Double> machine = new ArrayList<>();
    List<Double> limits = new ArrayList<>();
    for (ServerSample s : samples) {
      if (s.second() >= from && s.second() <= to) {
        cpu.add(s.processCpuPercent());
        machine.add(s.systemCpuPercent());
        ServerSample.LimiterLoad load = s.limiters().get(limiterName);
        if (load != null && load.limit() >= 0) {
          limits.add((double) load.limit());
        }
      }
    }
    Spread processCpu = Spread.of(cpu);
    // CPU-seconds per second in the jobs, over the service's (percent of the machine x cores)
    double jobsShare = jobCpu.length == 0 || !(seconds > 0) || capacity.cores() <= 0
        ? Double.NaN
        : Arrays.stream(jobCpu).sum()
            / 1000
            / seconds
            / (processCpu.mean() / 100 * capacity.cores());
    return new RunFigures(
        from,
        to,
        counts,
        goodput,
        goodput / capacity.perSecond(),
        goodput / capacity.atTarget(),
        work,
        admitted,
        admitted.p99() / capacity.unloadedP99Millis(),
        bySize,
        rank(toReject, 0.50),
        rank(toReject, 0.95),
        fastShare,
        reasons,
        processCpu,
        Spread.of(machine),
        Spread.of(limits),
        jobCpuMean,
        jobsShare);
  }

  private static List<Double> latencies(List<Answer> answers, Predicate<Answer> which) {
    return answers.stream().filter(which).map(Answer::latencyMillis).toList();
  }

  /** Nearest rank of a sorted list; NaN when empty. */
  static double rank(List<Double> sorted, double quantile) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(quantile * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
