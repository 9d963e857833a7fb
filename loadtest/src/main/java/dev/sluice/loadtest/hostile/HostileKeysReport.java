package dev.sluice.loadtest.hostile;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.RunReport;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.Percentiles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a hostile-keys run found, judged: the heap after GC against what the key bound allows, each
 * rule's key table against its bound, the probe's p99 during the flood against the quiet one, and
 * each known actor's permits against its exact allowance.
 */
final class HostileKeysReport {

  /**
   * Bytes a token bucket's key costs in a rule's table beyond the key (limiter-core README, "Keyed
   * state in bounded memory", measured with JOL by {@code StateSizeTest}).
   */
  static final long TABLE_BYTES_PER_KEY = 68;

  /**
   * The key itself at its longest: a rule keeps a value of up to 64 printable ASCII characters as it
   * is (a longer or odd one as a 23-character digest), a {@code String} of 24 bytes and a Latin-1
   * array of 16 + 64.
   */
  static final long KEY_BYTES = 24 + 16 + 64;

  /** How far a known actor's permits may be from its allowance: rounding at both ends. */
  static final double ALLOWANCE_TOLERANCE = 3;

  /**
   * The probe's p99 during the flood may be this many times its p99 during a flood as fast of keys
   * the node already knows (the control): on a machine whose cores the flood fills, the quiet p99
   * measures the saturation, not the keys.
   */
  static final double P99_RATIO = 2;

  /** One known actor's answers over the whole probe. */
  record Known(String rule, String actor, long allowed, long refused, long other, double seconds) {

    /** What its rule allows over its probe: the burst at once, then the rate. */
    double allowance() {
      return HostileKeysRun.RULE_BURST
          + HostileKeysRun.RULE_LIMIT * seconds / HostileKeysRun.RULE_UNIT_SECONDS;
    }

    boolean exact() {
      return other == 0 && Math.abs(allowed - allowance()) <= ALLOWANCE_TOLERANCE;
    }
  }

  /** The run's figures, as measured. */
  record Figures(
      long quietHeapBytes,
      long heapBytes,
      Map<String, Long> maxKeys,
      Map<String, Long> mostKeys,
      Map<String, Long> keysAfter,
      long polls,
      long sent,
      long answered,
      Map<Integer, Long> statuses,
      long connectionErrors,
      long floodNanos,
      int senderThreads,
      Percentiles quietProbe,
      Percentiles controlProbe,
      Percentiles floodProbe,
      List<Known> known,
      String loadAverageBefore,
      String loadAverageAfter,
      int cores) {

    /** Quiet heap plus every rule's bound times what a key costs at most. */
    long heapEstimateBytes() {
      long keys = maxKeys.values().stream().mapToLong(Long::longValue).sum();
      return quietHeapBytes + keys * (TABLE_BYTES_PER_KEY + KEY_BYTES);
    }

    double requestsPerSecond() {
      return floodNanos <= 0 ? 0 : sent * 1e9 / floodNanos;
    }

    long failures() {
      return connectionErrors
          + statuses.entrySet().stream()
              .filter(e -> e.getKey() != 200 && e.getKey() != 429)
              .mapToLong(Map.Entry::getValue)
              .sum();
    }

    boolean busy() {
      try {
        return Double.parseDouble(loadAverageAfter.split(" / ")[0]) > cores;
      } catch (NumberFormatException e) {
        return false;
      }
    }
  }

  private static final double MIB = 1024 * 1024;
  private final Figures r;

  HostileKeysReport(Figures figures) {
    this.r = figures;
  }

  List<Verdict> verdicts() {
    List<Verdict> verdicts = new ArrayList<>();
    verdicts.add(Verdict.judged(
            "keys sent of each kind (IP, account, API key)",
            f("%,d", HostileKeysRun.FLOOD),
            f(
                "%,d in %.0f s, %,.0f requests/s on %d connections",
                r.sent(), r.floodNanos() / 1e9, r.requestsPerSecond(), r.senderThreads()),
            Verdict.Outcome.of(r.sent() >= HostileKeysRun.FLOOD))
        .because(r.sent() >= HostileKeysRun.FLOOD ? null : "--duration ended the flood first"));
    verdicts.add(Verdict.judged(
        "heap after GC",
        f(
            "≤ %.1f MiB (quiet %.1f MiB + %,d keys x %d bytes)",
            r.heapEstimateBytes() / MIB,
            r.quietHeapBytes() / MIB,
            r.maxKeys().values().stream().mapToLong(Long::longValue).sum(),
            TABLE_BYTES_PER_KEY + KEY_BYTES),
        f("%.1f MiB", r.heapBytes() / MIB),
        Verdict.Outcome.of(r.heapBytes() <= r.heapEstimateBytes())));
    for (Map.Entry<String, Long> bound : r.maxKeys().entrySet()) {
      long most = r.mostKeys().getOrDefault(bound.getKey(), -1L);
      verdicts.add(Verdict.judged(
          "rule " + bound.getKey() + ": most keys seen (" + r.polls() + " reads)",
          f("≤ %,d", bound.getValue()),
          f("%,d", most),
          Verdict.Outcome.of(most >= 0 && most <= bound.getValue())));
    }
    double control = r.controlProbe().p99();
    double flooded = r.floodProbe().p99();
    verdicts.add(Verdict.judged(
            "known actors' p99 during the flood",
            f(
                "≤ %.1f ms (%.0fx the %.1f ms under a flood of known keys; quiet %.1f ms)",
                P99_RATIO * control, P99_RATIO, control, r.quietProbe().p99()),
            f("%.1f ms", flooded),
            Verdict.Outcome.of(r.floodProbe().count() > 0
                && r.controlProbe().count() > 0
                && flooded <= P99_RATIO * control))
        .because(r.busy() ? "shared machine busy: load " + r.loadAverageAfter() : null));
    for (Known k : r.known()) {
      verdicts.add(Verdict.judged(
              "known " + k.rule() + " actor " + k.actor() + ": permits",
              f(
                  "%.0f ± %.0f (burst %d + %d an %s x %.1f s)",
                  k.allowance(),
                  ALLOWANCE_TOLERANCE,
                  HostileKeysRun.RULE_BURST,
                  HostileKeysRun.RULE_LIMIT,
                  HostileKeysRun.RULE_UNIT,
                  k.seconds()),
              f("%,d of %,d", k.allowed(), k.allowed() + k.refused() + k.other()),
              Verdict.Outcome.of(k.exact()))
          .because(k.other() == 0 ? null : k.other() + " answered neither 200 nor 429"));
    }
    verdicts.add(Verdict.judged(
        "flood answers other than 200 or 429, or lost",
        "0",
        f("%,d", r.failures()),
        Verdict.Outcome.of(r.failures() == 0)));
    return verdicts;
  }

  Report report() {
    List<Verdict> verdicts = verdicts();
    Block.Table.Builder tables = Block.Table.of("rule", "bound", "most keys seen", "keys after");
    r.maxKeys()
        .forEach((rule, bound) -> tables.row(
            rule,
            f("%,d", bound),
            f("%,d", r.mostKeys().getOrDefault(rule, -1L)),
            f("%,d", r.keysAfter().getOrDefault(rule, -1L))));
    Map<String, Percentiles> probe = new LinkedHashMap<>();
    probe.put("quiet", r.quietProbe());
    probe.put("flood of known keys", r.controlProbe());
    probe.put("flood of new keys", r.floodProbe());
    Block.Table.Builder answers = Block.Table.of("status", "answers");
    r.statuses().forEach((status, n) -> answers.row(status, f("%,d", n)));
    answers.row("connection lost (batch unanswered)", r.connectionErrors());
    return Report.titled("hostile keys: " + f("%,d", HostileKeysRun.FLOOD)
            + " distinct IPs, accounts and API keys against one node")
        .summary("scenario", "hostile-keys")
        .summary("verdicts", verdicts)
        .summary("figures", r)
        .summary("heapEstimateBytes", r.heapEstimateBytes())
        .add(new Block.Verdicts("Verdict", verdicts))
        .add(Block.Section.of(
            "Set-up",
            new Block.Text(f(
                "One demo node, rules by IP (X-Forwarded-For trusted from 127.0.0.1), by account"
                    + " and by X-Api-Key, each %d/%s burst %d, token bucket, at most %,d keys"
                    + " per rule. A probe sends %d requests/s for each of three known actors"
                    + " (far above its rate) from a %d s warm-up to %d s after the flood; the"
                    + " quiet phase is %d s. Then, as the control, %,d requests as fast over"
                    + " %,d known IPs, accounts and keys (the probe's latency counted once each"
                    + " is known), then the flood: each request with a new IP, account and key."
                    + " Both are pipelined in batches of %d. Load average at the start %s, at"
                    + " the end %s (%d cores)%s.",
                HostileKeysRun.RULE_LIMIT,
                HostileKeysRun.RULE_UNIT,
                HostileKeysRun.RULE_BURST,
                HostileKeysRun.MAX_KEYS,
                KnownProbe.PER_SECOND,
                HostileKeysRun.WARM_UP.toSeconds(),
                HostileKeysRun.SETTLE.toSeconds(),
                HostileKeysRun.QUIET.toSeconds(),
                HostileKeysRun.CONTROL,
                HostileKeysRun.CONTROL_KEYS,
                KeyFlood.BATCH,
                r.loadAverageBefore(),
                r.loadAverageAfter(),
                r.cores(),
                r.busy() ? ": a busy machine, the latencies are not a quiet machine's" : ""))))
        .add(Block.Section.of("Key tables", tables.build()))
        .add(Block.Section.of("Known actors' latency", RunReport.latencyTable("phase (ms)", probe)))
        .add(Block.Section.of("Flood answers", answers.build()))
        .build();
  }
}
