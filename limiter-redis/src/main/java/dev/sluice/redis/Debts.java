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
 * runs, beside the share, the backlog those admissions would have left in a bucket of the global
 * rate ({@code until}: when it would have drained, on the node's clock); the charge adds only what is
 * still left of it when it reaches Redis. An actor that kept within its rate during the outage owes
 * (nearly) nothing afterwards. Re-adding a failed charge at the current time, as an earlier version
 * did, grew the debt at each probe cycle up to the capacity, and a whole period of lockout followed
 * every outage.
 *
 * <p>Each charge has an id that the script remembers ({@code charge_once.lua}), so a charge whose
 * answer was lost but which ran in Redis is not counted a second time when it is sent again.
 */
final class Debts {

  /** One charge: its id, what it charges, when its backlog drains and when it was made. */
  record Charge(String id, RateRequest request, long untilNanos, long madeAtNanos) {

    /** What is left of the backlog at {@code now}, in microseconds (0 when drained). */
    long backlogMicros(long now) {
      return Math.max(0, untilNanos - now) / 1_000;
    }

    /** Whether sending it can no longer change a decision: the admissions left every window. */
    boolean moot(long now) {
      long period = Math.max(1, request.limit().period().toNanos());
      return tat(request.algorithm()) ? untilNanos - now <= 0 : now - madeAtNanos >= period;
    }
  }

  /** The backlog of one rule and actor in a bucket of the global rate, on the node's clock. */
  private static final class Backlog {
    long until;
    boolean started;
  }

  private final Recent counts = new Recent();
  private final ConcurrentMap<Recent.Key, Backlog> backlogs = new ConcurrentHashMap<>();
  private final Queue<Charge> unanswered = new ConcurrentLinkedQueue<>();
  private final String node = UUID.randomUUID().toString();
  private final AtomicLong sequence = new AtomicLong();

  static boolean tat(Algorithm algorithm) {
    return switch (algorithm) {
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET, LEAKY_BUCKET_SHAPER -> true;
      case FIXED_WINDOW, SLIDING_WINDOW, SLIDING_LOG -> false;
    };
  }

  /** {@code request} was admitted locally at {@code now}. */
  void add(RateRequest request, long now) {
    counts.add(request, now);
    if (tat(request.algorithm())) {
      Backlog backlog = backlogs.computeIfAbsent(Recent.Key.of(request), k -> new Backlog());
      synchronized (backlog) {
        long from = !backlog.started || backlog.until - now < 0 ? now : backlog.until;
        backlog.until = from + intervalNanos(request.limit()) * request.cost();
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
        backlog.until -= intervalNanos(request.limit()) * request.cost();
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
        Backlog backlog = backlogs.remove(Recent.Key.of(owed));
        long until = now;
        if (backlog != null) {
          synchronized (backlog) {
            until = backlog.until;
          }
        }
        charges.add(new Charge(node + ':' + sequence.incrementAndGet(), owed, until, now));
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
}
