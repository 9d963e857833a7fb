package dev.sluice.loadtest.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Every arrival of a run, computed from the scenario and the seed before the first request goes out.
 *
 * <p>Arrivals are a Poisson process per stream (exponential gaps), made non-homogeneous by thinning
 * (Lewis and Shedler): candidates come at the stream's peak rate and each is kept with probability
 * {@code rate(t) / peakRate}. Fixing the plan up front is what makes the load open-loop: nothing a
 * response does can move a send time, so a slow server cannot slow its own load down.
 */
public final class ArrivalPlan {

  private final List<Arrival> arrivals;

  private ArrivalPlan(List<Arrival> arrivals) {
    this.arrivals = List.copyOf(arrivals);
  }

  /** The same streams, duration and seed always give the same plan. */
  public static ArrivalPlan generate(List<TrafficStream> streams, Duration duration, long seed) {
    long end = duration.toNanos();
    List<Arrival> all = new ArrayList<>();
    for (int i = 0; i < streams.size(); i++) {
      TrafficStream stream = streams.get(i);
      if (stream.peakRate() <= 0) {
        continue;
      }
      // one random per stream, derived from the seed and the stream's position: adding a stream
      // does
      // not reshuffle the others
      Random random = new Random(seed * 31 + i);
      double t = 0;
      while (true) {
        t += -Math.log(1 - random.nextDouble()) / stream.peakRate();
        long offset = (long) (t * 1e9);
        if (offset >= end) {
          break;
        }
        double keep = stream.rate().applyAsDouble(t) / stream.peakRate();
        if (random.nextDouble() >= keep) {
          continue;
        }
        int caller = random.nextInt(stream.callers());
        all.add(new Arrival(
            offset,
            stream.name(),
            stream.method(),
            stream.path().apply(random),
            stream.headers().apply(caller)));
      }
    }
    all.sort(Comparator.comparingLong(Arrival::offsetNanos));
    return new ArrivalPlan(all);
  }

  public List<Arrival> arrivals() {
    return arrivals;
  }

  public int size() {
    return arrivals.size();
  }
}
