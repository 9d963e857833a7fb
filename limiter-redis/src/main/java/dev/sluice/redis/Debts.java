package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this node admitted on its local share while Redis did not count, to be charged to Redis when
 * it answers again; and the charges sent but not answered, to be sent again unchanged.
 *
 * <p>A charge keeps the time of the admissions it stands for. For the bucket algorithms the node
 * runs, beside its share, the backlog of a bucket of the share's rate ({@code until}: when it would
 * have drained, on the node's clock): it starts with what the share was seeded with (this node's
 * admissions of the last period, already counted in Redis) and grows with each local admission.
 * Redis, meanwhile, refilled the actor's bucket at the global rate: the sum of every node's share
 * rate. So a charge adds to Redis what is left of the backlog when it reaches Redis, less what is
 * left of the seed (Redis still holds that part), converted to the global rate: without a bucket
 * that filled up (an actor that paused) that is exactly the node's admissions during the outage;
 * with one, less. The backlog runs on across charges: each charge is the slice of it added since
 * the one before ({@code from} to {@code until}), so charges taken at any moments add up to the
 * same as one. Draining the backlog at the global rate instead would let each of n nodes take
 * its share of the refill and charge as if it had the whole refill to itself: hot actors came back
 * to a bucket full again after every outage.
 *
 * <p>An actor that kept within its rate during the outage owes (nearly) nothing afterwards.
 * Re-adding a failed charge at the current time grew the debt at each probe cycle up to the
 * capacity, and a whole period of lockout followed every outage: a charge that is sent again is
 * sent as it was made.
 *
 * <p>Each charge has an id that the script remembers ({@code charge_once.lua}), so a charge whose
 * answer was lost but which ran in Redis is not counted a second time when it is sent again.
 */
final class Debts {

  /**
   * One charge: its id, what it charges, its slice of the backlog (from when to when it drains, at
   * the share's rate, on the node's clock) and when it was made; {@code scale} turns time of the
   * share's rate into time of the global rate (share limit / global limit).
   */
  record Charge(
      String id,
      RateRequest request,
      long untilNanos,
      long fromNanos,
      double scale,
      long madeAtNanos) {

    /**
     * What the charge adds to the actor's bucket in Redis at {@code now}, in microseconds of the
     * global rate: what is left of its slice (0 when drained).
     */
    long backlogMicros(long now) {
      long left = Math.max(0, untilNanos - now) - Math.max(0, fromNanos - now);
      return (long) (Math.max(0, left) * scale) / 1_000;
    }

    /** Whether sending it can no longer change a decision: the admissions left every window. */
    boolean moot(long now) {
      long period = Math.max(1, request.limit().period().toNanos());
      return tat(request.algorithm()) ? untilNanos - now <= 0 : now - madeAtNanos >= period;
    }
  }

  /**
   * The backlog of one rule and actor in a bucket of the share's rate, on the node's clock: when it
   * drains, and up to where it is charged already or was counted in Redis (the seed).
   */
  private static final class Backlog {
    long until;
    long charged;
    boolean started;
  }

  private final Recent counts = new Recent();
  private final ConcurrentMap<Recent.Key, Backlog> backlogs = new ConcurrentHashMap<>();
  private final Queue<Charge> unanswered = new ConcurrentLinkedQueue<>();
  private final String node = UUID.randomUUID().toString();
  private final AtomicLong sequence = new AtomicLong();
  private final int expectedNodes;

  /** {@code expectedNodes}: the nodes the limits are shared by (see {@link LocalShare#nodeShare}). */
  Debts(int expectedNodes) {
    this.expectedNodes = Math.max(1, expectedNodes);
  }

  static boolean tat(Algorithm algorithm) {
    return switch (algorithm) {
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET, LEAKY_BUCKET_SHAPER -> true;
      case FIXED_WINDOW, SLIDING_WINDOW, SLIDING_LOG -> false;
    };
  }

  /**
   * The share of {@code request}'s rule and actor was seeded at {@code now} with {@code used}
   * permits this node took in the last period: the backlog holds at least those, and they are not
   * charged (Redis counted them).
   */
  void seed(RateRequest request, long used, long now) {
    if (!tat(request.algorithm())) {
      return;
    }
    Recent.Key key = Recent.Key.of(request);
    // the seed counts this node's local admissions too (a share seeded again within one outage):
    // those are in the backlog and not charged yet
    long counted = Math.max(0, used - counts.count(key, now));
    long seeded = now + shareIntervalNanos(request.limit()) * counted;
    Backlog backlog = backlogs.computeIfAbsent(key, k -> new Backlog());
    synchronized (backlog) {
      if (!backlog.started || backlog.until - seeded < 0) {
        backlog.until = seeded;
      }
      if (!backlog.started || backlog.charged - seeded < 0) {
        backlog.charged = seeded;
      }
      backlog.started = true;
    }
  }

  /** {@code request} was admitted locally at {@code now}. */
  void add(RateRequest request, long now) {
    counts.add(request, now);
    if (tat(request.algorithm())) {
      Backlog backlog = backlogs.computeIfAbsent(Recent.Key.of(request), k -> new Backlog());
      synchronized (backlog) {
        if (!backlog.started || backlog.until - now < 0) {
          backlog.until = now; // drained: what was charged of it is gone too
          backlog.charged = now;
        }
        backlog.until += shareIntervalNanos(request.limit()) * request.cost();
        backlog.started = true;
      }
    }
  }

  /** A refund of a local admission. */
  void subtract(RateRequest request, long now) {
    counts.subtract(request, now);
    Backlog backlog = backlogs.get(Recent.Key.of(request));
    if (backlog != null) {
      synchronized (backlog) {
        backlog.until -= shareIntervalNanos(request.limit()) * request.cost();
      }
    }
  }

  boolean isEmpty() {
    return counts.isEmpty() && unanswered.isEmpty();
  }

  /**
   * Everything to send now: the charges not answered before (unchanged, but for those that can no
   * longer matter, which are dropped) and a new charge per rule and actor admitted since the last
   * call; forgotten here until {@link #unanswered} hands one back.
   */
  List<Charge> take(long now) {
    List<Charge> charges = new ArrayList<>();
    for (Charge old = unanswered.poll(); old != null; old = unanswered.poll()) {
      if (!old.moot(now)) {
        charges.add(old);
      }
    }
    if (!counts.isEmpty()) {
      for (RateRequest owed : counts.charges(now, true)) {
        Backlog backlog = backlogs.get(Recent.Key.of(owed));
        long until = now;
        long from = now;
        if (backlog != null) {
          synchronized (backlog) {
            until = backlog.until;
            // the earlier of the two by their difference: Math.min on raw nano values took a
            // backlog that crossed the clock's overflow for one that was charged already
            from = backlog.charged - until < 0 ? backlog.charged : until;
            backlog.charged = until; // the next charge takes the backlog from here on
          }
        }
        charges.add(new Charge(
            node + ':' + sequence.incrementAndGet(), owed, until, from, scale(owed.limit()), now));
      }
    }
    backlogs.values().removeIf(backlog -> {
      synchronized (backlog) {
        return backlog.until - now <= 0;
      }
    });
    return charges;
  }

  /**
   * A charge of what was admitted recently, for a Redis that lost it: counted from {@code now} as
   * before the loss (the bucket's backlog of {@code request}'s cost).
   */
  static Charge recentCharge(RateRequest request, long now) {
    return new Charge(
        "loss:" + UUID.randomUUID(),
        request,
        now + intervalNanos(request.limit()) * request.cost(),
        now,
        1,
        now);
  }

  /** A charge whose answer did not come: sent again, as it is, with the next ones. */
  void unanswered(Charge charge) {
    unanswered.add(charge);
  }

  /** Redis lost its state: everything recent is charged again instead (see {@link Recent}). */
  void clear(long now) {
    counts.charges(now, true);
    backlogs.clear();
    unanswered.clear();
  }

  private static long intervalNanos(RateLimit limit) {
    return Math.max(1, limit.period().toNanos() / Math.max(1, limit.limit()));
  }

  /** The interval of this node's share of {@code limit}: the rate its local share refills at. */
  private long shareIntervalNanos(RateLimit limit) {
    return intervalNanos(LocalShare.nodeShare(limit, expectedNodes));
  }

  /** Time of the share's rate to time of the global rate. */
  private double scale(RateLimit limit) {
    return (double) LocalShare.nodeShare(limit, expectedNodes).limit() / Math.max(1, limit.limit());
  }
}
