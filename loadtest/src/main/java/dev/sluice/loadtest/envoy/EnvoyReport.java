package dev.sluice.loadtest.envoy;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.pct;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Percentiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@code --scenario envoy-ratelimit} found: a verdict per target (met or missed), the figures
 * behind each, the machine and its load average before and after; {@code report.html} and {@code
 * summary.json} through the shared {@link Report} model.
 */
final class EnvoyReport {

  static final double LATENCY_AIM_MILLIS = 2;
  static final double CEILING_AIM = 0.70;

  private final Options options;
  private final EnvoyRateLimitRun.Durations durations;
  private final double rate;
  private final String loadBefore;
  private String loadAfter = "unknown";
  private final Map<String, List<Verdict>> verdicts = new LinkedHashMap<>();
  private final Map<String, Map<String, Object>> figures = new LinkedHashMap<>();
  private final Map<String, List<Block>> blocks = new LinkedHashMap<>();
  private final Map<String, Object> extra = new LinkedHashMap<>();

  EnvoyReport(
      Options options, EnvoyRateLimitRun.Durations durations, double rate, String loadBefore) {
    this.options = options;
    this.durations = durations;
    this.rate = rate;
    this.loadBefore = loadBefore;
  }

  @FunctionalInterface
  interface PartBody {
    void run() throws Exception;
  }

  /** Runs a part; one that throws is reported as not measured and the next part still runs. */
  void part(String name, PartBody body) {
    System.out.println("envoy-ratelimit: " + name);
    try {
      body.run();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      verdict(name, Verdict.notMeasured(name + ": the part did not run to its end: " + e));
    }
  }

  private void verdict(String part, Verdict v) {
    verdicts.computeIfAbsent(part, p -> new ArrayList<>()).add(v);
    System.out.println(Reporter.line(v));
  }

  private void figure(String part, String name, Object value) {
    figures.computeIfAbsent(part, p -> new LinkedHashMap<>()).put(name, value);
  }

  private void block(String part, Block b) {
    blocks.computeIfAbsent(part, p -> new ArrayList<>()).add(b);
  }

  void loadAfter(String load) {
    this.loadAfter = load;
  }

  // ---- RLS latency

  /**
   * @param run the rate-limit service's open loop
   * @param scriptOnly a {@link ScriptOnlyRateLimitService} at the same rate, after it: the latency
   *     of a service whose decision is the store's script call alone
   * @param transport an {@link EmptyRateLimitService} at the same rate, after that: the latency the
   *     transport and this machine give a service whose decision costs nothing
   */
  void latency(RlsLoad.OpenLoop run, RlsLoad.OpenLoop scriptOnly, RlsLoad.OpenLoop transport) {
    Percentiles millis = Percentiles.of(run.latencyMicros(), 1000);
    Percentiles bare = Percentiles.of(scriptOnly.latencyMicros(), 1000);
    Percentiles empty = Percentiles.of(transport.latencyMicros(), 1000);
    double p99 = millis.p99();
    boolean clean = run.errors() == 0 && run.unanswered() == 0;
    Verdict v = Verdict.judged(
        f(
            "RLS p99 latency at %s decisions/s with Redis (open loop, from the intended send time)",
            num(run.rate(), 0)),
        "< " + num(LATENCY_AIM_MILLIS, 0) + " ms",
        f("%.2f ms", p99),
        Outcome.of(p99 < LATENCY_AIM_MILLIS && clean));
    if (!clean) {
      v = v.because(run.errors() + " calls failed and " + run.unanswered()
          + " were unanswered (counted with the time they waited)");
    } else if (run.rate() != EnvoyRateLimitRun.TARGET_RATE) {
      v = v.because("the target is set at " + num(EnvoyRateLimitRun.TARGET_RATE, 0)
          + " decisions/s; this run's --rate was " + num(run.rate(), 0));
    } else if (p99 >= LATENCY_AIM_MILLIS) {
      v = v.because(f(
          "called the same way at the same rate right after, a RateLimitService whose decision is"
              + " the same script call to the same Redis and nothing else (grpc-java and Lettuce,"
              + " no Sluice) answers with p50 %.2f ms and p99 %.2f ms (largest send lag %.1f ms),"
              + " and an empty one (no decision) with p50 %.2f ms and p99 %.2f ms (%.1f ms)%s;"
              + " the seconds of the three runs are in the table below",
          bare.p50(),
          bare.p99(),
          scriptOnly.maxSendLagMicros() / 1000.0,
          empty.p50(),
          empty.p99(),
          transport.maxSendLagMicros() / 1000.0,
          bare.p99() >= LATENCY_AIM_MILLIS
              ? f(
                  ": on this machine a service that only calls Redis is past the aim, and this"
                      + " one's p99 is %.2fx that floor",
                  p99 / bare.p99())
              : f(
                  ", which leaves %.2f ms of the aim to the decision beyond its Redis call",
                  LATENCY_AIM_MILLIS - bare.p99())));
    }
    verdict("latency", v);
    figure("latency", "rate (decisions/s)", run.rate());
    figure("latency", "measured (s)", run.measured().toMillis() / 1000.0);
    figure("latency", "latency (ms)", millis.byName());
    figure("latency", "sent", run.sent());
    figure("latency", "answered OK", run.ok());
    figure("latency", "answered OVER_LIMIT", run.overLimit());
    figure("latency", "errors", run.errors());
    figure("latency", "unanswered after 10 s", run.unanswered());
    figure("latency", "largest send lag (ms)", run.maxSendLagMicros() / 1000.0);
    List<Percentiles> seconds = bySecond(run);
    List<Percentiles> bareSeconds = bySecond(scriptOnly);
    List<Percentiles> emptySeconds = bySecond(transport);
    figure("latency", "latency by second of the run (ms)", rows(seconds));
    figure("latency", "script-only service latency (ms)", bare.byName());
    figure("latency", "script-only service errors", scriptOnly.errors() + scriptOnly.unanswered());
    figure(
        "latency",
        "script-only service largest send lag (ms)",
        scriptOnly.maxSendLagMicros() / 1000.0);
    figure("latency", "script-only service latency by second of the run (ms)", rows(bareSeconds));
    figure("latency", "empty service latency (ms)", empty.byName());
    figure("latency", "empty service errors", transport.errors() + transport.unanswered());
    figure("latency", "empty service largest send lag (ms)", transport.maxSendLagMicros() / 1000.0);
    figure("latency", "empty service latency by second of the run (ms)", rows(emptySeconds));
    Block.Table.Builder t = Block.Table.of(
        "second",
        "service p50 (ms)",
        "service p99 (ms)",
        "service max (ms)",
        "script-only p99 (ms)",
        "empty p99 (ms)");
    for (int s = 0; s < seconds.size(); s++) {
      Percentiles one = seconds.get(s);
      t.row(
          s,
          f("%.2f", one.p50()),
          f("%.2f", one.p99()),
          f("%.2f", one.max()),
          p99Of(bareSeconds, s),
          p99Of(emptySeconds, s));
    }
    block("latency", t.build());
  }

  /** Second {@code s}'s p99 of a yardstick's run, or blank when that run had no such second. */
  private static String p99Of(List<Percentiles> seconds, int s) {
    return s < seconds.size() ? f("%.2f", seconds.get(s).p99()) : "";
  }

  /** Each second's percentiles, by the second of the calls' intended send time. */
  private static List<Percentiles> bySecond(RlsLoad.OpenLoop run) {
    return run.bySecond().stream().map(h -> Percentiles.of(h, 1000)).toList();
  }

  /** Each second's count, p50, p99 and largest, for summary.json. */
  private static List<Map<String, Object>> rows(List<Percentiles> seconds) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int s = 0; s < seconds.size(); s++) {
      Percentiles one = seconds.get(s);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("second", s);
      row.put("calls", one.count());
      row.put("p50", one.p50());
      row.put("p99", one.p99());
      row.put("max", one.max());
      rows.add(row);
    }
    return rows;
  }

  // ---- RLS throughput against Redis's own

  /**
   * @param service the rate-limit service's closed loop
   * @param direct redis-server answering the same script, called straight from Lettuce
   * @param scriptOnly a {@link ScriptOnlyRateLimitService}: what a service answers whose decision
   *     is that script call alone, the same client and calls in flight
   * @param transport an {@link EmptyRateLimitService}: what grpc-java answers when the decision
   *     costs nothing, the same client and calls in flight
   */
  void throughput(
      RlsLoad.ClosedLoop service,
      RlsLoad.ClosedLoop direct,
      RlsLoad.ClosedLoop scriptOnly,
      RlsLoad.ClosedLoop transport) {
    double share = service.perSecond() / direct.perSecond();
    double ofScriptOnly = service.perSecond() / scriptOnly.perSecond();
    double ofTransport = service.perSecond() / transport.perSecond();
    double bound = bothOnOneMachine(transport, direct);
    boolean clean = service.errors() == 0
        && direct.errors() == 0
        && scriptOnly.errors() == 0
        && transport.errors() == 0;
    Verdict v = Verdict.judged(
        f(
            "RLS decisions/s at %d calls in flight, share of what redis-server answers to the same"
                + " script at %d in flight",
            service.inFlight(), direct.inFlight()),
        "≥ " + pct(CEILING_AIM),
        f("%s of %s/s = %s", num(service.perSecond(), 0), num(direct.perSecond(), 0), pct(share)),
        Outcome.of(share >= CEILING_AIM && clean));
    if (!clean) {
      v = v.because(service.errors() + " service calls, " + direct.errors() + " script calls, "
          + scriptOnly.errors() + " calls of the script-only service and " + transport.errors()
          + " calls of the empty service failed");
    } else if (share < CEILING_AIM) {
      v = v.because(f(
          "a RateLimitService whose decision is the same script call and nothing else answers"
              + " %s/s here (%s of redis-server's figure), and an empty one (no decision) %s/s"
              + " (%s): the service reaches %s of the first and %s of the second. A decision costs"
              + " both the transport's work and Redis's on the same cores, so by those figures no"
              + " service here can answer more than %s/s (%s of redis-server's figure); this one"
              + " answers %s of that",
          num(scriptOnly.perSecond(), 0),
          pct(scriptOnly.perSecond() / direct.perSecond()),
          num(transport.perSecond(), 0),
          pct(transport.perSecond() / direct.perSecond()),
          pct(ofScriptOnly),
          pct(ofTransport),
          num(bound, 0),
          pct(bound / direct.perSecond()),
          pct(service.perSecond() / bound)));
    }
    verdict("throughput", v);
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("service decisions/s", service.perSecond());
    row.put("redis-server script calls/s", direct.perSecond());
    row.put("share", share);
    row.put("script-only service answers/s", scriptOnly.perSecond());
    row.put("share of the script-only service", ofScriptOnly);
    row.put("empty service answers/s", transport.perSecond());
    row.put("share of the empty service", ofTransport);
    row.put("most a service could answer here (/s)", bound);
    row.put("service errors", service.errors());
    row.put("script errors", direct.errors());
    row.put("script-only service errors", scriptOnly.errors());
    row.put("empty service errors", transport.errors());
    figure("throughput", service.inFlight() + " in flight", row);
  }

  /**
   * The most decisions a second a service could answer on this machine, if a decision cost exactly
   * one empty call's work and one script call's in Redis and nothing else: both run on the same
   * cores, so their times per call add up (each figure is what the machine does of that work alone).
   */
  static double bothOnOneMachine(RlsLoad.ClosedLoop transport, RlsLoad.ClosedLoop redis) {
    return 1 / (1 / transport.perSecond() + 1 / redis.perSecond());
  }

  // ---- exact limit across two replicas

  void window(WindowCheck.Result result, int decisions, long errors) {
    Verdict v = Verdict.judged(
        f(
            "admitted per one-second window by two replicas on one Redis, %d callers on each",
            EnvoyRateLimitRun.CALLERS_PER_REPLICA),
        "exactly " + result.limit() + " in every window",
        f("%d of %d windows exact", result.exact(), result.judged().size()),
        result.judged().isEmpty() ? Outcome.NOT_MEASURED : Outcome.of(result.met() && errors == 0));
    if (result.judged().isEmpty()) {
      v = v.because("no whole window was refused in: the callers never reached the limit");
    } else if (errors > 0) {
      v = v.because(errors + " calls failed");
    } else if (!result.met()) {
      v = v.because(result.judged().stream()
          .filter(w -> !w.exact(result.limit()))
          .map(w -> f(
              "second %d: %d admitted, %d counter values repeated",
              w.epochSecond(), w.admitted(), w.duplicates()))
          .collect(Collectors.joining("; ")));
    }
    verdict("exactLimit", v);
    figure("exactLimit", "limit per window", result.limit());
    figure("exactLimit", "answers", decisions);
    figure("exactLimit", "errors", errors);
    figure("exactLimit", "windows judged", result.judged().size());
    figure("exactLimit", "windows exact", result.exact());
    figure("exactLimit", "whole windows never refused in (not judged)", result.unreached());
    Block.Table.Builder t =
        Block.Table.of("window (epoch second)", "admitted", "repeated counter values", "refused");
    result
        .judged()
        .forEach(w -> t.row(
            w.epochSecond(),
            Block.Cell.judged(Integer.toString(w.admitted()), w.exact(result.limit())),
            w.duplicates(),
            w.refused()));
    block("exactLimit", t.build());
    extra.put("windows", result.judged());
  }

  /** The same part judged by what the replicas themselves admitted per window. */
  void serverWindows(ServerWindows.Result result) {
    Verdict v = Verdict.judged(
        "admitted per one-second window by two replicas on one Redis, by the replicas' own counts",
        "exactly " + result.limit() + " in every window under full pressure",
        f("%d of %d windows exact", result.exact(), result.judged().size()),
        result.judged().isEmpty() ? Outcome.NOT_MEASURED : Outcome.of(result.met()));
    if (result.judged().isEmpty()) {
      v = v.because("no replica refused in a whole window: the callers never reached the limit");
    } else if (!result.met()) {
      v = v.because(result.judged().stream()
          .filter(w -> !w.exact(result.limit()))
          .map(w ->
              f("second %d: %d admitted %s", w.epochSecond(), w.admitted(), w.admittedByReplica()))
          .collect(Collectors.joining("; ")));
    }
    verdict("exactLimit", v);
    figure(
        "exactLimit", "windows judged by the replicas' counts", result.judged().size());
    figure("exactLimit", "windows exact by the replicas' counts", result.exact());
    Block.Table.Builder t = Block.Table.of(
        "window (epoch second)", "admitted (replicas' counts)", "by replica", "refused hits");
    result
        .judged()
        .forEach(w -> t.row(
            w.epochSecond(),
            Block.Cell.judged(Long.toString(w.admitted()), w.exact(result.limit())),
            w.admittedByReplica(),
            w.refused()));
    block("exactLimit", t.build());
    extra.put("serverWindows", result.judged());
  }

  // ---- RLQS

  void quota(QuotaRun.Result r) {
    long quota = r.settings().quota();
    long judged = r.judged().size();
    verdict(
        "rlqs",
        Verdict.judged(
            f("RLQS: admitted per second by three proxies of uneven demand sharing %d/s", quota),
            "within 5% of the quota in every judged second",
            f("%d of %d seconds", r.within5(), judged),
            judged == 0 ? Outcome.NOT_MEASURED : Outcome.of(r.within5() == judged)));
    verdict(
        "rlqs",
        Verdict.judged(
            "RLQS: seconds a proxy was refused while another left over 5% of the quota unused",
            "0",
            Long.toString(r.starved()),
            judged == 0 ? Outcome.NOT_MEASURED : Outcome.of(r.starved() == 0)));
    boolean reassigned = !Double.isNaN(r.reassignedAt()) && !Double.isNaN(r.demandsSeenAt());
    Verdict reassignment = Verdict.judged(
        "RLQS: every proxy enforcing its new fair share, after the service had a whole report"
            + " interval of each proxy's new demand",
        "≤ " + num(r.settings().interval().toMillis() / 1000.0, 1) + " s (one report interval)",
        reassigned
            ? f(
                "%.2f s (%.2f s after the demands moved)",
                r.reassignmentSeconds(), r.reassignedAt() - r.movedAt())
            : "never within the phase",
        Outcome.of(reassigned
            && r.reassignmentSeconds() <= r.settings().interval().toNanos() / 1e9 + 1e-9));
    verdict("rlqs", reassignment);
    long held = r.reconnects().stream().filter(QuotaRun.Reconnect::met).count();
    verdict(
        "rlqs",
        Verdict.judged(
            "RLQS: proxies of a replica killed with kill -9 keep their last assignment and are"
                + " answered by the other replica before its TTL runs out",
            "all",
            f(
                "%d of %d (%s)",
                held,
                r.reconnects().size(),
                r.reconnects().stream()
                    .map(c -> f(
                        "proxy %d answered again after %s s with %s s of TTL left, %d ticks off"
                            + " its assignment",
                        c.proxy() + 1,
                        num(c.answeredAfterSeconds(), 2),
                        num(c.ttlLeftSeconds(), 2),
                        c.ticksOffItsAssignment()))
                    .collect(Collectors.joining("; "))),
            r.reconnects().isEmpty()
                ? Outcome.NOT_MEASURED
                : Outcome.of(held == r.reconnects().size())));
    figure("rlqs", "quota per second", quota);
    figure("rlqs", "demands before (per second)", r.settings().before());
    figure("rlqs", "demands after (per second)", r.settings().after());
    figure("rlqs", "fair shares before", r.fairBefore());
    figure("rlqs", "fair shares after", r.fairAfter());
    figure("rlqs", "demands moved at (s)", r.movedAt());
    figure("rlqs", "new demands reported by all at (s)", r.demandsSeenAt());
    figure("rlqs", "all on their new fair share at (s)", r.reassignedAt());
    figure("rlqs", "replica 1 killed at (s)", r.killedAt());
    figure("rlqs", "reports unanswered (the killed replica's)", r.reportFailures());
    figure("rlqs", "sum within 5% again after the kill (s)", r.recoveredAfter());
    figure(
        "rlqs",
        "most admitted in one second after the kill",
        r.periods().stream()
            .filter(p -> p.second() >= r.killedAt())
            .mapToLong(QuotaRun.Period::sum)
            .max()
            .orElse(0));
    Block.Table.Builder t = Block.Table.of(
        "second",
        "phase",
        "admitted (proxy 1 / 2 / 3)",
        "refused",
        "share at its end",
        "sum",
        "judged");
    for (QuotaRun.Period p : r.periods()) {
      t.row(
          p.second(),
          p.phase(),
          joined(p.admitted()),
          joined(p.denied()),
          joined(p.share()),
          p.judged()
              ? Block.Cell.judged(Long.toString(p.sum()), QuotaRun.withinShare(p.sum(), quota))
              : p.sum(),
          p.judged() ? "yes" : "no");
    }
    block("rlqs", t.build());
    extra.put("rlqsSeconds", r.periods());
    extra.put("rlqsReconnects", r.reconnects());
  }

  private static String joined(List<?> values) {
    return values.stream()
        .map(v -> v instanceof Double d ? num(d, 0) : String.valueOf(v))
        .collect(Collectors.joining(" / "));
  }

  /** The command that runs it again. */
  String command() {
    return options.replay(
        "envoy-ratelimit", options.rate().map(r -> " --rate " + num(r, 0)).orElse(""));
  }

  Report report() {
    Report.Builder report = Report.titled("envoy-ratelimit")
        .summary("scenario", "envoy-ratelimit")
        .ran(
            command(),
            loadBefore,
            loadAfter,
            "The load generator, both replicas and redis-server share the machine; the timing"
                + " figures are worth something only on a quiet one.")
        .summary(
            "durations",
            Map.of(
                "latencySeconds", durations.latency().toMillis() / 1000.0,
                "closedLoopSeconds", durations.closedLoop().toMillis() / 1000.0,
                "windowSeconds", durations.window().toMillis() / 1000.0,
                "rlqsPhaseSeconds", durations.quotaPhase().toMillis() / 1000.0))
        .summary("rate", rate)
        .summary("verdicts", verdicts)
        .summary("figures", figures);
    extra.forEach(report::summary);
    List<Verdict> all = verdicts.values().stream().flatMap(List::stream).toList();
    report.add(new Block.Verdicts("Targets", all));
    for (String part : List.of("latency", "throughput", "exactLimit", "rlqs")) {
      List<Block> inside = new ArrayList<>();
      Map<String, Object> f = figures.get(part);
      if (f != null) {
        Block.Table.Builder t = Block.Table.of("figure", "value");
        f.forEach((k, v) -> t.row(k, shown(v)));
        inside.add(t.build());
      }
      inside.addAll(blocks.getOrDefault(part, List.of()));
      if (!inside.isEmpty()) {
        report.add(new Block.Section(heading(part), inside));
      }
    }
    return report.build();
  }

  private static String heading(String part) {
    return switch (part) {
      case "latency" -> "RLS latency, open loop";
      case "throughput" -> "RLS decisions per second against redis-server's own";
      case "exactLimit" -> "RLS: exactly the limit across two replicas";
      default -> "RLQS: three proxies, one quota, a replica killed";
    };
  }

  private static String shown(Object v) {
    if (v instanceof Double d) {
      return num(d, 2);
    }
    if (v instanceof List<?> list) {
      return joined(list);
    }
    if (v instanceof Map<?, ?> m) {
      return m.entrySet().stream()
          .map(e -> e.getKey() + " " + shown(e.getValue()))
          .collect(Collectors.joining(", "));
    }
    return String.valueOf(v);
  }

  Path write(Path out) throws IOException {
    Path page = Reporter.write(report(), out);
    System.out.println("envoy-ratelimit: " + command());
    return page;
  }
}
