package dev.sluice.loadtest.overhead;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.overhead.OverheadRun.Result;
import dev.sluice.loadtest.overhead.OverheadRun.Side;
import dev.sluice.loadtest.report.Headline;
import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The headlines of the overhead run, one per Sluice variant: its server CPU per request against no
 * limiter and against the cheapest peer measured in the same rounds (the aim: no more than that
 * peer), and the bytes it allocates per request beside the peer's (the explanation, not judged).
 */
final class OverheadVerdict {

  /** The no-limiter floor of Javalin's own hooks: measured, but neither Sluice nor a peer. */
  static final String HANDLERS = "javalin-handlers";

  private OverheadVerdict() {}

  static List<Verdict> of(Result result) {
    List<Verdict> verdicts = new ArrayList<>();
    Optional<Side> peer = result.sides().stream()
        .filter(OverheadVerdict::isPeer)
        .filter(s -> Double.isFinite(s.cpuRatio()))
        .min(Comparator.comparingDouble(OverheadVerdict::cheapness));
    List<Side> sluice =
        result.sides().stream().filter(OverheadVerdict::isSluice).toList();
    if (sluice.isEmpty()) {
      verdicts.add(Verdict.notMeasured("no Sluice variant was measured, nothing to judge"));
    }
    for (Side s : sluice) {
      verdicts.add(judge(s, peer));
    }
    return verdicts;
  }

  static Verdict judge(Side s, Optional<Side> peer) {
    if (!Double.isFinite(s.cpuRatio())) {
      return Verdict.notMeasured(
          s.variant() + ": CPU per request not measured (no request completed, or no CPU reading)");
    }
    Headline h = Headline.of(s.variant())
        .fact(f(
            "%.3fx the CPU per request of no limiter (%s; rounds %.3f-%.3f), %s",
            s.cpuRatio(), interval(s.cpuPaired()), s.cpuRatioLow(), s.cpuRatioHigh(), bytes(s)));
    if (peer.isEmpty()) {
      return h.fact("no peer measured to judge it against").verdict();
    }
    Side p = peer.get();
    PairedRatio against = PairedRatio.of(s.cpuRounds(), p.cpuRounds());
    if (against.rounds() < 2) { // no paired rounds to judge by: the medians
      h.check(
          f("%.3fx", s.cpuRatio()),
          f("≤ %.3fx", p.cpuRatio()),
          s.cpuRatio() <= p.cpuRatio(),
          f(
              " against the cheapest peer, %s: %.3fx (rounds %.3f-%.3f), %s",
              p.variant(), p.cpuRatio(), p.cpuRatioLow(), p.cpuRatioHigh(), bytes(p)));
    } else {
      h.check(
          f("%.3fx the cheapest peer's CPU per request", against.ratio()),
          "≤ 1.000x",
          against.ratio() <= 1,
          f(
              " (%s%s); %s: %.3fx of no limiter (%s), %s",
              interval(against),
              against.excludes(1) ? "" : ", the two cannot be told apart",
              p.variant(),
              p.cpuRatio(),
              interval(p.cpuPaired()),
              bytes(p)));
    }
    if (s.non2xx() > 0) {
      h.check(s.non2xx() + " answers not 2xx", "0", false, "");
    }
    return h.verdict();
  }

  /** A paired ratio's 95% interval, as the verdicts and the table print it. */
  static String interval(PairedRatio r) {
    return r == null || Double.isNaN(r.low())
        ? "no interval"
        : f("paired %.3fx, 95%% %.3f-%.3f", r.ratio(), r.low(), r.high());
  }

  private static String bytes(Side s) {
    return Double.isNaN(s.bytesPerRequest())
        ? "bytes per request not readable"
        : f(
            "%,.0f B per request (%+,.0f B over no limiter)",
            s.bytesPerRequest(), s.bytesOverBaseline());
  }

  /** The paired ratio to no limiter where there is one, else the medians' ratio. */
  private static double cheapness(Side s) {
    return s.cpuPaired() != null && Double.isFinite(s.cpuPaired().ratio())
        ? s.cpuPaired().ratio()
        : s.cpuRatio();
  }

  static boolean isSluice(Side s) {
    return s.variant().startsWith("sluice-");
  }

  static boolean isPeer(Side s) {
    return !isSluice(s)
        && !s.variant().equals(OverheadVariant.BASELINE)
        && !s.variant().equals(HANDLERS);
  }
}
