package dev.sluice.loadtest.overload;

import static dev.sluice.loadtest.report.Numbers.num;

import dev.sluice.loadtest.engine.RetryingGrpcClient;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Block.Table.Column;
import dev.sluice.loadtest.sampling.ThreadCount;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The gRPC door's part of the overload report: per sweep run the service's threads unloaded and
 * under load, the limiter's running and queued jobs beside them, and the retrying client's
 * attempts against the pushback.
 */
final class DoorReport {

  private DoorReport() {}

  /** The section of a kind's runs through the door, if any ran through it. */
  static Optional<Block> section(List<SweepResult> runs) {
    List<SweepResult> door = runs.stream().filter(r -> r.door() != null).toList();
    if (door.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Block.Section.of(
        "gRPC door: threads and pushback",
        new Block.Text("Threads: the service's thread count (Threads: of /proc/<pid>/status, every "
            + GrpcDoorRun.THREAD_PERIOD_MILLIS
            + " ms), min / median / max, while it answered " + GrpcDoorRun.UNLOADED_CALLS
            + " calls one at a time before the run (unloaded) and from the run's first arrival to"
            + " the end of its drain. The ceiling is the unloaded max, one thread per job the"
            + " limiter ran at once (most in flight in /sluice) and " + DoorFigures.THREAD_SLACK
            + " more: a queued call that held a thread would add one per queued call. Retrying"
            + " client: a grpc-java channel with a retry policy for RESOURCE_EXHAUSTED (up to "
            + RetryingGrpcClient.MAX_ATTEMPTS
            + " attempts), sending a share of the run's rate beside it; a retry after a pushback"
            + " is early when it starts before the previous attempt's close plus the pushback;"
            + " slack is start - close - pushback."),
        table(door)));
  }

  private static Block.Table table(List<SweepResult> runs) {
    return Block.Table.of(
        List.of(
            Column.of("variant", SweepResult::variant),
            Column.of("load", r -> OverloadRun.num(r.point()) + "x"),
            door("threads unloaded", d -> range(d.unloadedThreads())),
            Column.judged(
                "threads under load",
                "<= ceiling",
                r -> range(r.door().threads()),
                r -> r.door().threadsFlat()),
            door("ceiling", d -> d.unloadedThreads().measured() ? d.threadCeiling() : "-"),
            door("in flight max", DoorFigures::inFlightMax),
            door("queued max", DoorFigures::queuedMax),
            door("retrying calls /s", d -> num(d.retryingPerSecond())),
            door(
                "calls / attempts",
                d -> d.pushback().calls() + " / " + d.pushback().attempts()),
            Column.judged(
                "retries after a pushback: early",
                "0",
                r -> r.door().pushback().afterPushback() + ": "
                    + r.door().pushback().violationCount(),
                r -> r.door().pushbackHonoured()),
            door("least slack ms", d -> num(d.pushback().minSlackMillis())),
            door("final statuses", d -> d.pushback().finalStatuses().toString())),
        runs);
  }

  private static Column<SweepResult> door(String header, Function<DoorFigures, ?> value) {
    return Column.of(header, r -> value.apply(r.door()));
  }

  static String range(ThreadCount.Range r) {
    return r.measured()
        ? r.min() + " / " + r.median() + " / " + r.max()
        : "not read (no /proc/<pid>/status)";
  }

  /** A finished run's door figures on the console. */
  static void print(String head, DoorFigures d) {
    System.out.println(head + " over gRPC: threads unloaded " + range(d.unloadedThreads())
        + ", under load " + range(d.threads()) + " (ceiling "
        + (d.unloadedThreads().measured() ? Integer.toString(d.threadCeiling()) : "-")
        + "; in flight max " + d.inFlightMax() + ", queued max " + d.queuedMax()
        + "); retrying client " + d.pushback().calls() + " calls, "
        + d.pushback().attempts()
        + " attempts, " + d.pushback().afterPushback() + " after a pushback, "
        + d.pushback().violationCount() + " early, least slack "
        + num(d.pushback().minSlackMillis()) + " ms" + violations(d));
  }

  private static String violations(DoorFigures d) {
    return d.pushback().violations().isEmpty()
        ? ""
        : ": " + String.join("; ", d.pushback().violations());
  }
}
