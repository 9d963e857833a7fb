package dev.sluice.loadtest.envoy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether exactly the limit was admitted in every one-second window, from the answers of callers
 * on two replicas. The service counts in epoch-aligned windows on its wall clock, which the load
 * test shares (one machine): an answer sent and answered within one second was decided in that
 * second. An admission that straddles a second's edge is placed by its {@code limit_remaining}: the
 * window's counter gave each admission of a window its own value, {@code limit - 1} down to 0, so
 * it belongs to a window of its span still missing that value. A window is judged when a refusal was certainly
 * decided in it (the limit was reached there) and it lies wholly inside the run.
 */
final class WindowCheck {

  private static final long SECOND = 1_000_000_000L;

  /** One judged window: its admissions, whether each value came once, and the limit. */
  record Window(long epochSecond, int admitted, int duplicates, int refused) {
    boolean exact(long limit) {
      return admitted == limit && duplicates == 0;
    }
  }

  /** Every window judged, and the windows wholly inside the run that were not (never refused). */
  record Result(long limit, List<Window> judged, int unreached) {
    long exact() {
      return judged.stream().filter(w -> w.exact(limit)).count();
    }

    boolean met() {
      return !judged.isEmpty() && exact() == judged.size();
    }
  }

  private WindowCheck() {}

  static Result judge(
      List<RlsLoad.Decision> decisions, long limit, long fromEpochNanos, long toEpochNanos) {
    Map<Long, BitSet> values = new TreeMap<>();
    Map<Long, int[]> counts = new TreeMap<>(); // admitted, duplicates, certain refusals
    List<RlsLoad.Decision> straddling = new ArrayList<>();
    for (RlsLoad.Decision d : decisions) {
      long first = Math.floorDiv(d.sentEpochNanos(), SECOND);
      long last = Math.floorDiv(d.answeredEpochNanos(), SECOND);
      if (!d.ok()) {
        if (first == last) {
          counts.computeIfAbsent(first, w -> new int[3])[2]++;
        }
      } else if (first == last) {
        admit(values, counts, first, d.remaining());
      } else {
        straddling.add(d);
      }
    }
    // each value once per window: a straddling admission takes the earliest window of its span
    // still missing its value, the spans taken in the order they end (the greedy matching of
    // intervals to points, which places them all whenever any placement can)
    straddling.sort(Comparator.comparingLong(RlsLoad.Decision::answeredEpochNanos));
    for (RlsLoad.Decision d : straddling) {
      long first = Math.floorDiv(d.sentEpochNanos(), SECOND);
      long last = Math.floorDiv(d.answeredEpochNanos(), SECOND);
      long chosen = last;
      for (long w = first; w <= last; w++) {
        if (!has(values, w, d.remaining())) {
          chosen = w;
          break;
        }
      }
      admit(values, counts, chosen, d.remaining());
    }
    List<Window> judged = new ArrayList<>();
    int unreached = 0;
    long firstWhole = Math.floorDiv(fromEpochNanos, SECOND) + 1;
    long lastWhole = Math.floorDiv(toEpochNanos, SECOND) - 1;
    for (long w = firstWhole; w <= lastWhole; w++) {
      int[] c = counts.getOrDefault(w, new int[3]);
      if (c[2] == 0) {
        unreached++;
      } else {
        judged.add(new Window(w, c[0], c[1], c[2]));
      }
    }
    return new Result(limit, judged, unreached);
  }

  private static boolean has(Map<Long, BitSet> values, long window, long remaining) {
    BitSet set = values.get(window);
    return set != null
        && remaining >= 0
        && remaining < Integer.MAX_VALUE
        && set.get((int) remaining);
  }

  private static void admit(
      Map<Long, BitSet> values, Map<Long, int[]> counts, long window, long remaining) {
    int[] c = counts.computeIfAbsent(window, w -> new int[3]);
    c[0]++;
    if (remaining < 0 || remaining >= Integer.MAX_VALUE) {
      c[1]++; // no counter value to tell it apart: as bad as a repeated one
      return;
    }
    BitSet set = values.computeIfAbsent(window, w -> new BitSet());
    if (set.get((int) remaining)) {
      c[1]++;
    }
    set.set((int) remaining);
  }
}
