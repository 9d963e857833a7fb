package dev.sluice.javalin;

import dev.sluice.config.QueueSettings;
import dev.sluice.request.Actor;
import dev.sluice.request.RequestInfo;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * How many units of its limiter a request takes, as a limiter's {@code cost} says: a constant
 * ({@code 1}, the default), declared by the client ({@code header:NAME}, {@code query:NAME}), or
 * {@code learned} from the service times of earlier requests of the same kind.
 *
 * <p><b>Declared.</b> A declared cost is in the caller's own unit (milliseconds of CPU, seconds of
 * footage, bytes); {@code cost-scale} of those make one unit of the limit: the request takes
 * {@code declared / cost-scale} units, rounded, at least 1 (with {@code cost-scale=100}, a cost of
 * 50 takes 1 unit and one of 800 takes 8). Every cost is shown to the limiter's {@link
 * CostCeiling}, which reports those that can never fit beside another request.
 *
 * <p><b>Learned.</b> Requests are grouped by the limiter's queue key (a fair queue's tenant), or by
 * path when it has none. Each group keeps an exponentially weighted mean of its service time (weight
 * {@value #WEIGHT}: about the last 10 jobs), and so does the whole limiter; a request costs its
 * group's mean over the limiter's, rounded, at least 1: the typical job costs 1, one that takes
 * four times as long costs 4. A group not seen yet costs 1. At most {@value #MAX_GROUPS} groups are
 * remembered (client-chosen keys must not grow memory without bound): beyond that a new group
 * costs 1 and is not learned.
 */
final class RequestCost {

  /** Weight of the newest service time in the means. */
  static final double WEIGHT = 0.1;

  static final int MAX_GROUPS = 10_000;

  /** A declared cost that is not a whole number >= 1: answered 400 naming it. */
  static final class BadCost extends RuntimeException {
    BadCost(String message) {
      super(message, null, false, false);
    }
  }

  private final int constant; // > 0: every request costs this
  private final String header;
  private final String query;
  private final boolean learned;
  private final Function<RequestInfo, String> groupKey; // learned: null means by path
  private final int scale; // declared: the caller's units per unit of the limit
  private final CostCeiling ceiling;
  private final Map<String, double[]> groups = new ConcurrentHashMap<>();
  private volatile double typicalNanos = Double.NaN;

  private RequestCost(
      int constant,
      String header,
      String query,
      boolean learned,
      Function<RequestInfo, String> groupKey,
      int scale,
      CostCeiling ceiling) {
    this.constant = constant;
    this.header = header;
    this.query = query;
    this.learned = learned;
    this.groupKey = groupKey;
    this.scale = scale;
    this.ceiling = ceiling;
  }

  /**
   * The cost of {@code spec} ({@code cost}'s value, checked when parsed); a declared cost is
   * divided by {@code scale}; every cost is shown to {@code ceiling}.
   */
  static RequestCost of(String spec, int scale, QueueSettings queue, CostCeiling ceiling) {
    String v = spec.trim();
    String lower = v.toLowerCase(Locale.ROOT);
    if (lower.startsWith("header:")) {
      return new RequestCost(
          0, v.substring("header:".length()).trim(), null, false, null, scale, ceiling);
    }
    if (lower.startsWith("query:")) {
      return new RequestCost(
          0, null, v.substring("query:".length()).trim(), false, null, scale, ceiling);
    }
    if (lower.equals("learned")) {
      return new RequestCost(
          0, null, null, true, queue.key().map(Actor::keyOf).orElse(null), 1, ceiling);
    }
    return new RequestCost(Integer.parseInt(v), null, null, false, null, 1, ceiling);
  }

  /** Whether every request costs 1 (nothing to work out per request). */
  boolean one() {
    return constant == 1;
  }

  /** Whether service times must be reported back ({@link #served}). */
  boolean learns() {
    return learned;
  }

  /** Whether the client declares the cost (header or query parameter). */
  boolean declares() {
    return header != null || query != null;
  }

  /** The cost of every request when it is a constant; 0 otherwise. */
  int constant() {
    return constant;
  }

  /** The caller's units per unit of the limit (1 but for a declared cost with a scale). */
  int scale() {
    return scale;
  }

  /** Where a cost of {@code declared} came from, for a message. */
  String describe(long declared) {
    if (declares()) {
      return (header != null ? "header " + header + ": " : "query parameter " + query + "=")
          + declared + ", cost-scale " + scale;
    }
    return learned ? "learned from service times" : "cost=" + constant + " for every request";
  }

  /**
   * The cost of {@code request}. A declared cost that is missing costs 1.
   *
   * @throws BadCost when a declared cost is not a whole number >= 1
   */
  int of(RequestInfo request, Function<String, String> queryParam) {
    if (constant > 0) {
      ceiling.seen(constant, constant, this);
      return constant;
    }
    if (learned) {
      int units = learnedCost(group(request));
      ceiling.seen(units, units, this);
      return units;
    }
    String raw = header != null ? request.header(header).orElse(null) : queryParam.apply(query);
    if (raw == null || raw.isBlank()) {
      return 1;
    }
    long declared;
    try {
      declared = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      declared = 0; // answered below
    }
    // rounded half up: a cost of half the scale or more takes a unit, as a learned cost rounds
    long units = declared / scale + (declared % scale >= (scale + 1) / 2 ? 1 : 0);
    if (declared < 1 || units > Integer.MAX_VALUE) {
      throw new BadCost((header != null ? "header " + header : "query parameter " + query)
          + (declared < 1
              ? " must be a whole number >= 1 (the request's cost)"
              : " must be at most " + (long) Integer.MAX_VALUE * scale + " (the request's cost)")
          + " but was '" + shorten(raw) + "'");
    }
    int taken = (int) Math.max(1, units);
    ceiling.seen(declared, taken, this); // the limiter takes at most its whole limit
    return taken;
  }

  /** A learned group's key: the queue key, or the path. */
  String group(RequestInfo request) {
    if (groupKey != null) {
      String key = groupKey.apply(request);
      return key == null ? "unknown" : key;
    }
    return request.path();
  }

  /** A request of {@code group} was served in {@code nanos}: learn from it. */
  void served(String group, long nanos) {
    if (!learned || nanos <= 0) {
      return;
    }
    double typical = typicalNanos;
    typicalNanos = Double.isNaN(typical) ? nanos : typical + WEIGHT * (nanos - typical);
    double[] mean = groups.get(group);
    if (mean == null) {
      if (groups.size() >= MAX_GROUPS) {
        return;
      }
      mean = groups.computeIfAbsent(group, g -> new double[] {Double.NaN});
    }
    // racy by design, as the core's recent service time: a lost update moves a mean of ten jobs
    // by a tenth of one at most
    double m = mean[0];
    mean[0] = Double.isNaN(m) ? nanos : m + WEIGHT * (nanos - m);
  }

  private int learnedCost(String group) {
    double[] mean = groups.get(group);
    double typical = typicalNanos;
    if (mean == null || Double.isNaN(mean[0]) || !(typical > 0)) {
      return 1;
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(mean[0] / typical)));
  }

  private static String shorten(String raw) {
    return raw.length() <= 32 ? raw : raw.substring(0, 32) + "...";
  }
}
