package dev.sluice.redis;

import dev.sluice.store.RateRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Finds the writes a promoted replica never received (standalone Redis with Sentinel). Redis
 * replicates asynchronously, so a replica promoted after its master died can lack the master's last
 * writes; the epoch cannot tell (it replicated long before), the replication offsets can.
 *
 * <p>Every poll starts a new generation, then asks the master for {@code INFO replication}: its
 * answer's {@code master_repl_offset} covers every write answered before the poll was sent, that is
 * every admission counted in an earlier generation. A promoted replica answers a new {@code
 * master_replid}, the old one as {@code master_replid2}, and in {@code second_repl_offset} where
 * its copy of the old master's stream ended. The admissions of the generations from the last poll
 * whose offset the replica had are the ones that may be lost: those, and no more, are charged
 * again. Admissions counted in Redis are kept per generation for the last {@value #KEPT} polls;
 * when the replica had none of them, everything kept is charged: a replica more than that behind
 * costs the older admissions once more (a bounded overshoot), where charging the whole last period
 * would charge twice what it did receive (a lockout of up to a period for a busy actor).
 */
final class Replication {

  /** How many polls back a loss can be placed (8 s at one poll per 500 ms). */
  static final int KEPT = 16;

  /**
   * What a promotion costs: the admissions to charge again; {@code all} when the replica lacked
   * every poll kept, so all kept admissions are in it.
   */
  record Promotion(boolean all, List<RateRequest> charges) {}

  private final AtomicLong generation = new AtomicLong();
  private final ConcurrentMap<Long, ConcurrentMap<Recent.Key, LongAdder>> admitted =
      new ConcurrentHashMap<>();
  /**
   * The admissions of the newest generation (also in {@link #admitted} under its number), so that
   * an admission finds its generation without a lookup; replaced under this object's lock.
   */
  private volatile ConcurrentMap<Recent.Key, LongAdder> current = new ConcurrentHashMap<>();

  /** (generation, offset) of the polls answered by the master known; guarded by this. */
  private final Deque<long[]> polls = new ArrayDeque<>();

  private String replid;

  Replication() {
    admitted.put(generation.get(), current);
  }

  /** {@code request} was admitted in Redis (its write may be lost on a failover). */
  void admitted(RateRequest request) {
    admitted(Recent.Key.of(request), request.cost());
  }

  /** {@code cost} was admitted in Redis for {@code key} (its write may be lost on a failover). */
  void admitted(Recent.Key key, long cost) {
    ConcurrentMap<Recent.Key, LongAdder> into = current;
    LongAdder count = into.get(key);
    if (count == null) {
      count = into.computeIfAbsent(key, k -> new LongAdder());
    }
    count.add(cost);
  }

  /** A poll is about to be sent: later admissions count in a new generation. Answers this one. */
  synchronized long nextPoll() {
    long poll = generation.incrementAndGet();
    ConcurrentMap<Recent.Key, LongAdder> next = new ConcurrentHashMap<>();
    admitted.put(poll, next);
    current = next;
    return poll;
  }

  /**
   * The {@code INFO replication} answer of the poll {@code poll}: a promotion that may have lost
   * writes, or null.
   */
  synchronized Promotion answered(long poll, String info) {
    String id = field(info, "master_replid");
    if (id == null || !"master".equals(field(info, "role"))) {
      return null; // a replica (read-only) or an answer without the fields: nothing to place
    }
    Promotion promotion = null;
    if (replid != null && !replid.equals(id)) {
      if (replid.equals(field(info, "master_replid2"))) {
        promotion = lost(Long.parseLong(field(info, "second_repl_offset")) - 1);
      }
      polls.clear(); // another history: the old offsets mean nothing in it
      admitted.keySet().removeIf(g -> g != generation.get());
      current.clear();
    }
    replid = id;
    polls.addLast(new long[] {poll, Long.parseLong(field(info, "master_repl_offset"))});
    if (polls.size() > KEPT) {
      polls.removeFirst();
      long oldest = polls.peekFirst()[0];
      admitted.keySet().removeIf(g -> g < oldest);
    }
    return promotion;
  }

  /** What was admitted after the last poll whose writes the replica had ({@code survived}). */
  private Promotion lost(long survived) {
    long from = Long.MIN_VALUE;
    for (long[] poll : polls) {
      if (poll[1] <= survived) {
        from = Math.max(from, poll[0]);
      }
    }
    Map<Recent.Key, Long> owed = new java.util.HashMap<>();
    for (var generation : admitted.entrySet()) {
      if (generation.getKey() >= from) {
        generation.getValue().forEach((key, cost) -> owed.merge(key, cost.sum(), Long::sum));
      }
    }
    List<RateRequest> charges = new ArrayList<>();
    owed.forEach((key, cost) -> charges.add(key.request(cost)));
    return new Promotion(from == Long.MIN_VALUE, charges);
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }
}
