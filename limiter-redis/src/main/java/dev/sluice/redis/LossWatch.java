package dev.sluice.redis;

import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that Redis lost its counts (a restart without persistence, FLUSHALL, FLUSHDB) and keeps
 * the nodes from deciding on the emptied state until every node has charged its recent admissions
 * again.
 *
 * <p>The key {@value #EPOCH_KEY} holds a value that changes with every loss: the first caller to
 * find it missing writes a new one. A node remembers the value it last saw and sends it with every
 * decision script ({@code epoch_check.lua}, standalone Redis and Sentinel): a script that finds
 * another value decides nothing and answers the current one. In Redis Cluster the key lives on one
 * master and a script may not touch another slot, so there a plain GET is pipelined beside each
 * request instead, and the decisions already sent when the loss lands are made on the emptied state.
 *
 * <p>Finding a loss, a node charges everything it admitted in the last period again and writes the
 * leases it holds again, then decides rate rules on its local share (seeded with those admissions)
 * and grants no new lease for {@link #settleNanos()}. The other nodes find
 * the loss in their own next decision or, if idle, in the poll every {@link #POLL}, and do the
 * same; the settling time is chosen so that every live node's charge has reached Redis before any
 * node trusts Redis again. Over the period of a loss the nodes therefore admit at most what they
 * would in an outage: one local share beyond the limit for two nodes.
 */
final class LossWatch {

  private static final Logger LOG = LoggerFactory.getLogger(LossWatch.class);

  /** In Redis Cluster it lives on one master, whose loss it reports. */
  static final String EPOCH_KEY = "sluice:epoch";
  /** How often an idle node asks whether Redis lost its counts. */
  static final Duration POLL = Duration.ofMillis(500);
  /** Never a value of the key, so a script sent while a loss is being learnt is never decided. */
  private static final String LOST = "-";

  private final Link link;
  private final NanoClock clock;
  private final Scheduler scheduler;
  private final CallBound bound;
  private final boolean inScripts;
  private final Consumer<RedisScriptingAsyncCommands<String, String>> onLoss;
  /**
   * The epoch of the Redis last talked to: null before the first answer, {@link #LOST} between
   * finding it gone and learning the new one. Changed by CAS only, so one loss is charged once.
   */
  private final AtomicReference<String> epoch = new AtomicReference<>();

  private final LongAdder losses = new LongAdder();
  private volatile long settledAt;
  private volatile boolean settling;
  private volatile Scheduler.Cancellable poll;
  private volatile boolean closed;

  /**
   * {@code inScripts}: the decision scripts check the epoch themselves (not in Redis Cluster).
   * {@code onLoss}: charges what this node admitted recently, on the connection given.
   */
  LossWatch(
      Link link,
      NanoClock clock,
      Scheduler scheduler,
      CallBound bound,
      boolean inScripts,
      Consumer<RedisScriptingAsyncCommands<String, String>> onLoss) {
    this.link = link;
    this.clock = clock;
    this.scheduler = scheduler;
    this.bound = bound;
    this.inScripts = inScripts;
    this.onLoss = onLoss;
  }

  /**
   * How long a node decides on its share after finding a loss: long enough for an idle node to poll
   * (up to {@link #POLL}), hear back and have its charge reach Redis, each bounded by the timeout,
   * with one more poll as slack for a busy machine's timers.
   */
  long settleNanos() {
    return 2 * POLL.toNanos() + 2 * bound.decisionNanos();
  }

  /** Whether the decision scripts check the epoch (standalone Redis and Sentinel). */
  boolean inScripts() {
    return inScripts;
  }

  /**
   * The epoch to send with a decision script: {@code ""} while none is known (the script then
   * answers the current one, writing a new epoch if there is none, and decides nothing).
   */
  String known() {
    String known = epoch.get();
    return known == null ? "" : known;
  }

  /**
   * {@link #known()} for a decision about to be sent, or null while this node settles. The epoch is
   * read before the settling check, the reverse of {@link #settleThenSwap}'s order: an epoch read
   * here that is already the one swapped in after a loss is always followed by a check that sees
   * the settling, so no decision carries it to Redis's flushed counts.
   */
  String knownUnlessSettling() {
    String known = known();
    return settling() ? null : known;
  }

  /** Whether this node has learnt the epoch since it started. */
  boolean learnt() {
    String known = epoch.get();
    return known != null && !known.equals(LOST);
  }

  /** Whether this node decides on its share because Redis lost its counts a moment ago. */
  boolean settling() {
    // the flag only spares the clock read until the first loss; it is never cleared, so a second
    // loss cannot be overwritten by a caller that saw the first one end
    return settling && clock.nanoTime() - settledAt < 0;
  }

  /** {@code described}, with a note while this node settles after a loss. */
  String describe(String described) {
    if (!settling()) {
      return described;
    }
    long left = TimeUnit.NANOSECONDS.toMillis(settledAt - clock.nanoTime());
    return described + " [Redis lost its counts: global rules on this node's share, no new "
        + "lease, for " + left + " ms more]";
  }

  /** How many losses this node has found since it started. */
  long losses() {
    return losses.sum();
  }

  /** A decision script found {@code current} instead of the epoch it was sent with. */
  void scriptSaw(String current, RedisScriptingAsyncCommands<String, String> redis) {
    String known = epoch.get();
    if (known == null || known.equals(LOST) || current.equals(known)) {
      // learnt now, or the loss was already found (by the poll, or by another reply): a script
      // sent before this node knew the new value
      if (known == null || known.equals(LOST)) {
        epoch.compareAndSet(known, current);
      }
      return;
    }
    if (settleThenSwap(known, current)) {
      lost(redis);
    }
  }

  /**
   * Asks for the epoch with a plain GET (Redis Cluster: beside every request; everywhere: the idle
   * poll and the first contact). A missing value is replaced by a new random one.
   */
  @SuppressWarnings("unchecked")
  CompletableFuture<Void> ask(RedisScriptingAsyncCommands<String, String> redis) {
    if (!(redis instanceof RedisStringAsyncCommands<?, ?>)) {
      return CompletableFuture.completedFuture(null);
    }
    RedisStringAsyncCommands<String, String> strings =
        (RedisStringAsyncCommands<String, String>) redis;
    CompletableFuture<String> asked;
    String before = epoch.get();
    try {
      asked = strings.get(EPOCH_KEY).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return asked.orTimeout(bound.nanos(), TimeUnit.NANOSECONDS).thenCompose(current -> {
      String known = epoch.get();
      if (!java.util.Objects.equals(known, before)) {
        // a script answered while this GET was under way: the node learnt (or found a loss)
        // from an answer newer than this one. A fresh node's first GET, read before its first
        // script wrote the epoch and answered after it, was taken for a loss
        return CompletableFuture.completedFuture(null);
      }
      if (current == null) {
        // gone: charge at once (before the new value is even written), then write one
        if (known != null && !known.equals(LOST) && settleThenSwap(known, LOST)) {
          lost(redis);
        }
        return strings
            .set(
                EPOCH_KEY,
                Long.toHexString(ThreadLocalRandom.current().nextLong()),
                SetArgs.Builder.nx())
            .thenCompose(written -> strings.get(EPOCH_KEY))
            .toCompletableFuture()
            .thenAccept(this::learn);
      }
      if (known != null
          && !known.equals(LOST)
          && !known.equals(current)
          && settleThenSwap(known, current)) {
        lost(redis); // another node found it gone first and wrote a new one
      }
      learn(current);
      return CompletableFuture.completedFuture(null);
    });
  }

  /** Remembers the current epoch unless a change is still to be charged. */
  private void learn(String current) {
    if (current == null) {
      return;
    }
    String known = epoch.get();
    if (known == null || known.equals(LOST)) {
      epoch.compareAndSet(known, current);
    }
  }

  /**
   * Starts settling, then replaces the known epoch: in that order, so that no request thread can
   * read the new epoch while this node does not settle yet, send a decision with it, and have Redis
   * decide it on the counts it just lost (an admission beyond the node's share; see {@link
   * #knownUnlessSettling}). If the swap fails another thread found the same loss and settles
   * already; the settling time then starts a moment later, which costs nothing.
   */
  private boolean settleThenSwap(String known, String next) {
    settledAt = clock.nanoTime() + settleNanos();
    settling = true;
    return epoch.compareAndSet(known, next);
  }

  /** After {@link #settleThenSwap}: counts the loss and charges this node's counts again. */
  private void lost(RedisScriptingAsyncCommands<String, String> redis) {
    losses.increment();
    LOG.warn(
        "Redis at {} lost its counts (restart or FLUSHALL): charging what this node admitted "
            + "in the last period again, and deciding global rules on this node's share for {} ms "
            + "while the other nodes do the same",
        link.where(),
        TimeUnit.NANOSECONDS.toMillis(settleNanos()));
    onLoss.accept(redis);
  }

  /**
   * Starts the idle poll: a node that decides nothing still charges its counts after a loss, and
   * {@code answered} runs on the connection after each poll Redis answered.
   */
  void startPolling(
      java.util.function.BooleanSupplier up,
      java.util.function.Consumer<RedisScriptingAsyncCommands<String, String>> answered) {
    poll = scheduler.schedule(
        () -> {
          if (closed) {
            return;
          }
          try {
            RedisScriptingAsyncCommands<String, String> redis =
                up.getAsBoolean() ? link.commands() : null;
            if (redis != null) {
              ask(redis).thenRun(() -> answered.accept(redis)).exceptionally(error -> {
                LOG.debug("epoch poll failed", error);
                return null;
              });
            }
          } catch (RuntimeException e) {
            LOG.debug("epoch poll failed", e);
          } finally {
            startPolling(up, answered);
          }
        },
        POLL.toNanos());
  }

  void close() {
    closed = true;
    Scheduler.Cancellable current = poll;
    if (current != null) {
      current.cancel();
    }
  }
}
