package dev.sluice.loadtest.envoy;

import dev.sluice.ratelimit.simulated.QuotaProxy;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * RLQS: three simulated Envoy proxies ({@link QuotaProxy}, the service's own test proxy) of uneven
 * demand share one bucket through two replicas on one Redis: two proxies stream to the first
 * replica, one to the second. Three phases of equal length: the demands as set, then moved (the
 * heaviest becomes the lightest), then the first replica killed with {@code kill -9} while its
 * proxies stream to it. The proxies run on a clock of their own that steps 10 ms at a time, paced
 * to the wall clock (the service's demands expire on Redis's clock), so their requests arrive
 * evenly in their time whatever the machine does, and each reports every interval, one after the
 * other a third of an interval apart.
 */
final class QuotaRun {

  static final BucketId BUCKET = QuotaProxy.bucket("name", "shared");
  static final String DOMAIN = "envoy";
  static final RateLimitStrategy ALLOW_ALL =
      RateLimitStrategy.newBuilder().setBlanketRule(BlanketRule.ALLOW_ALL).build();

  private static final long TICK = Duration.ofMillis(10).toNanos();
  private static final long SECOND = 1_000_000_000L;
  /** The proxies' replicas: the first two on the first replica, the third on the second. */
  private static final int[] FIRST_REPLICA = {0, 0, 1};

  /**
   * @param quota requests per second for all the proxies together
   * @param interval each proxy's reporting interval
   * @param phase the length of each of the three phases
   * @param before the proxies' demands (requests per second) in the first phase
   * @param after their demands from the second phase on
   */
  record Settings(
      long quota, Duration interval, Duration phase, List<Double> before, List<Double> after) {
    Settings {
      before = List.copyOf(before);
      after = List.copyOf(after);
    }
  }

  /** One second of the proxies' clock: what each admitted and refused, and its share at the end. */
  record Period(
      int second,
      String phase,
      List<Long> admitted,
      List<Long> denied,
      List<Long> share,
      boolean judged) {
    Period {
      admitted = List.copyOf(admitted);
      denied = List.copyOf(denied);
      share = List.copyOf(share);
    }

    long sum() {
      return admitted.stream().mapToLong(Long::longValue).sum();
    }
  }

  /** A proxy of the killed replica: when it was answered again, and how it held on meanwhile. */
  record Reconnect(
      int proxy,
      double answeredAfterSeconds,
      double ttlLeftSeconds,
      int ticksOffItsAssignment,
      boolean onTheOtherReplica) {
    boolean met() {
      return !Double.isNaN(answeredAfterSeconds)
          && ttlLeftSeconds > 0
          && ticksOffItsAssignment == 0
          && onTheOtherReplica;
    }
  }

  /**
   * What the run found.
   *
   * @param movedAt when the demands moved, seconds on the proxies' clock
   * @param demandsSeenAt when every proxy had reported a whole interval of its new demand
   * @param reassignedAt when every proxy first enforced its new fair share (NaN: never)
   * @param killedAt when the first replica was killed
   * @param recoveredAfter seconds after the kill until the sum was within 5% of the quota again
   *     (NaN: not within the run)
   */
  record Result(
      Settings settings,
      List<Long> fairBefore,
      List<Long> fairAfter,
      List<Period> periods,
      double movedAt,
      double demandsSeenAt,
      double reassignedAt,
      double killedAt,
      List<Reconnect> reconnects,
      long reportFailures,
      double recoveredAfter) {

    List<Period> judged() {
      return periods.stream().filter(Period::judged).toList();
    }

    long within5() {
      return judged().stream()
          .filter(p -> withinShare(p.sum(), settings.quota()))
          .count();
    }

    /** Judged periods where a proxy was refused while another left over 5% of the quota unused. */
    long starved() {
      return judged().stream()
          .filter(p -> QuotaRun.starved(p, settings.quota()))
          .count();
    }

    double reassignmentSeconds() {
      return reassignedAt - demandsSeenAt;
    }
  }

  private QuotaRun() {}

  static boolean withinShare(long sum, long quota) {
    return Math.abs(sum - quota) <= 0.05 * quota;
  }

  static boolean starved(Period p, long quota) {
    for (int i = 0; i < p.admitted().size(); i++) {
      if (p.denied().get(i) == 0) {
        continue;
      }
      for (int j = 0; j < p.admitted().size(); j++) {
        if (j != i && p.share().get(j) - p.admitted().get(j) > 0.05 * quota) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Max-min fair shares of {@code quota} for {@code demands}: who asks less than an equal share gets
   * what it asks, the rest is divided the same way among the others, and what nobody asks is
   * spread evenly. The judge's own reckoning, to set the service's answers against.
   */
  static long[] fair(double[] demands, long quota) {
    int n = demands.length;
    double[] share = new double[n];
    boolean[] done = new boolean[n];
    double left = quota;
    int open = n;
    boolean changed = true;
    while (changed && open > 0) {
      changed = false;
      double equal = left / open;
      for (int i = 0; i < n; i++) {
        if (!done[i] && demands[i] <= equal) {
          share[i] = demands[i];
          left -= demands[i];
          done[i] = true;
          open--;
          changed = true;
        }
      }
    }
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      double s = done[i] ? share[i] : left / open;
      if (open == 0) {
        s += left / n;
      }
      out[i] = Math.round(s);
    }
    return out;
  }

  /** Runs the three phases against {@code replicas} (two), killing the first in the third. */
  static Result run(List<ServiceReplica> replicas, Settings s) throws InterruptedException {
    AtomicLong now = new AtomicLong();
    List<Integer> ports = replicas.stream().map(ServiceReplica::port).toList();
    int n = s.before().size();
    double[] before = s.before().stream().mapToDouble(Double::doubleValue).toArray();
    double[] after = s.after().stream().mapToDouble(Double::doubleValue).toArray();
    List<QuotaProxy> proxies = new ArrayList<>();
    long interval = s.interval().toNanos();
    long phase = s.phase().toNanos();
    long[] fairBefore = fair(before, s.quota());
    long[] fairAfter = fair(after, s.quota());
    long tolerance = Math.max(2, Math.round(0.02 * s.quota()));
    int seconds = (int) (3 * phase / SECOND);
    long[][] admitted = new long[seconds][n];
    long[][] denied = new long[seconds][n];
    long[][] share = new long[seconds][n];
    long[] nextReport = new long[n];
    double[] acc = new double[n];
    long[] firstFull = new long[n];
    Arrays.fill(firstFull, Long.MIN_VALUE);
    boolean[] onOther = new boolean[n];
    long reassignedAt = Long.MIN_VALUE;
    long killedAt = Long.MIN_VALUE;
    RateLimitStrategy[] lastStrategy = new RateLimitStrategy[n];
    long[] lastExpires = new long[n];
    long[] answeredAgain = new long[n];
    int[] offTicks = new int[n];
    long failures = 0;
    Arrays.fill(answeredAgain, Long.MIN_VALUE);
    try {
      for (int i = 0; i < n; i++) {
        proxies.add(new QuotaProxy(
            ports, FIRST_REPLICA[i % FIRST_REPLICA.length], now::get, DOMAIN, ALLOW_ALL));
        nextReport[i] = interval * (i + 1) / n;
      }
      long realStart = System.nanoTime();
      for (long v = TICK; v <= 3 * phase; v += TICK) {
        long wait = realStart + v - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        now.set(v);
        if (killedAt == Long.MIN_VALUE && v >= 2 * phase) {
          for (int i = 0; i < n; i++) {
            lastStrategy[i] = proxies.get(i).enforcing(BUCKET);
            lastExpires[i] = proxies.get(i).expiresAt(BUCKET);
          }
          replicas.get(0).kill();
          killedAt = v;
        }
        double[] demand = v <= phase ? before : after;
        int second = (int) ((v - TICK) / SECOND);
        for (int i = 0; i < n; i++) {
          acc[i] += demand[i] * TICK / SECOND;
          int count = (int) acc[i];
          acc[i] -= count;
          int passed = proxies.get(i).requests(BUCKET, count);
          admitted[second][i] += passed;
          denied[second][i] += count - passed;
        }
        for (int i = 0; i < n; i++) {
          if (v < nextReport[i]) {
            continue;
          }
          nextReport[i] += interval;
          QuotaProxy p = proxies.get(i);
          p.send();
          Object answer = p.poll(Duration.ofSeconds(2));
          if (answer instanceof RateLimitQuotaResponse response) {
            p.apply(response);
            if (killedAt != Long.MIN_VALUE
                && FIRST_REPLICA[i % FIRST_REPLICA.length] == 0
                && answeredAgain[i] == Long.MIN_VALUE) {
              answeredAgain[i] = v;
              onOther[i] = p.port() == ports.get(1);
            }
          } else {
            failures++;
          }
          if (v - interval >= phase && firstFull[i] == Long.MIN_VALUE) {
            firstFull[i] = v; // its first report of a whole interval of its new demand
          }
        }
        boolean allFair = v > phase;
        for (int i = 0; i < n; i++) {
          RateLimitStrategy enforced = proxies.get(i).enforcing(BUCKET);
          long perSecond = perSecond(enforced, s.quota());
          share[second][i] = perSecond;
          allFair &= Math.abs(perSecond - fairAfter[i]) <= tolerance;
          if (killedAt != Long.MIN_VALUE
              && FIRST_REPLICA[i % FIRST_REPLICA.length] == 0
              && answeredAgain[i] == Long.MIN_VALUE
              && v < lastExpires[i]
              && !enforced.equals(lastStrategy[i])) {
            offTicks[i]++;
          }
        }
        if (allFair && reassignedAt == Long.MIN_VALUE && killedAt == Long.MIN_VALUE) {
          reassignedAt = v;
        }
      }
    } finally {
      proxies.forEach(QuotaProxy::close);
    }
    long seenAt = Arrays.stream(firstFull).anyMatch(t -> t == Long.MIN_VALUE)
        ? Long.MIN_VALUE
        : Arrays.stream(firstFull).max().getAsLong();
    int settle = (int) ((3 * interval + SECOND - 1) / SECOND);
    int firstJudgedAfter = reassignedAt == Long.MIN_VALUE
        ? Integer.MAX_VALUE
        : (int) ((reassignedAt + interval + SECOND - 1) / SECOND);
    List<Period> periods = new ArrayList<>();
    double recovered = Double.NaN;
    for (int k = 0; k < seconds; k++) {
      long start = k * SECOND;
      String name =
          start < phase ? "demands as set" : start < 2 * phase ? "demands moved" : "after kill -9";
      boolean judged = (start < phase && k >= settle && start + SECOND <= phase)
          || (start >= phase && start + SECOND <= 2 * phase && k >= firstJudgedAfter);
      Period p = new Period(k, name, boxed(admitted[k]), boxed(denied[k]), boxed(share[k]), judged);
      periods.add(p);
      if (Double.isNaN(recovered) && start >= killedAt && withinShare(p.sum(), s.quota())) {
        recovered = (start - killedAt) / 1e9;
      }
    }
    List<Reconnect> reconnects = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (FIRST_REPLICA[i % FIRST_REPLICA.length] != 0) {
        continue;
      }
      double answeredAfter =
          answeredAgain[i] == Long.MIN_VALUE ? Double.NaN : (answeredAgain[i] - killedAt) / 1e9;
      double ttlLeft = answeredAgain[i] == Long.MIN_VALUE
          ? Double.NaN
          : lastExpires[i] == Long.MAX_VALUE
              ? Double.POSITIVE_INFINITY
              : (lastExpires[i] - answeredAgain[i]) / 1e9;
      reconnects.add(new Reconnect(i, answeredAfter, ttlLeft, offTicks[i], onOther[i]));
    }
    return new Result(
        s,
        boxed(fairBefore),
        boxed(fairAfter),
        periods,
        phase / 1e9,
        seenAt == Long.MIN_VALUE ? Double.NaN : seenAt / 1e9,
        reassignedAt == Long.MIN_VALUE ? Double.NaN : reassignedAt / 1e9,
        killedAt / 1e9,
        reconnects,
        failures,
        recovered);
  }

  private static List<Long> boxed(long[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  /** A strategy as requests per second: the quota for allow-all, 0 for deny-all. */
  static long perSecond(RateLimitStrategy s, long quota) {
    return switch (s.getStrategyCase()) {
      case BLANKET_RULE -> s.getBlanketRule() == BlanketRule.ALLOW_ALL ? quota : 0;
      case REQUESTS_PER_TIME_UNIT -> s.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
      case TOKEN_BUCKET -> s.getTokenBucket().getMaxTokens();
      default -> quota;
    };
  }
}
