package dev.sluice.redis;

import dev.sluice.time.NanoClock;
import io.lettuce.core.api.StatefulConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a slow Redis from a dead one when calls time out. On a timeout (one check at a time) a PING
 * goes out on the same connection, bounded by the connect timeout instead of the decision timeout:
 *
 * <ul>
 *   <li>it is answered within the timeout: one late call, nothing to say;
 *   <li>it is answered later: Redis is there but slower than {@code sluice.redis.timeout}, so decisions
 *       are made locally; the round trip is logged (once per change of advice) and shown in {@code
 *       describe()} with the timeout to raise;
 *   <li>it is not: the connection is replaced. A frozen (SIGSTOP) or blackholed Redis never closes
 *       its socket, so without this the node would wait on that connection for as long as TCP
 *       retransmits, long after a Sentinel promoted a replica.
 * </ul>
 */
final class StallCheck {

  private static final Logger LOG = LoggerFactory.getLogger(RedisStores.class);

  private final Link link;
  private final Duration timeout;
  private final AtomicBoolean checking = new AtomicBoolean();
  private volatile String advice = "";
  private volatile long replaced;
  private final NanoClock ticker;

  StallCheck(Link link, Duration timeout) {
    this(link, timeout, NanoClock.system());
  }

  /** {@code ticker}: the time a PING's round trip is measured on (a scripted one in tests). */
  StallCheck(Link link, Duration timeout, NanoClock ticker) {
    this.link = link;
    this.timeout = timeout;
    this.ticker = ticker;
  }

  /** A call timed out. */
  // FutureReturnValueIgnored: the callback handles the failure; the future it returns is not
  // needed.
  // NonAtomicVolatileUpdate: one check at a time (the checking flag), so replaced has one writer
  @SuppressWarnings({"FutureReturnValueIgnored", "NonAtomicVolatileUpdate"})
  void timedOut() {
    StatefulConnection<String, String> on = link.current();
    if (on == null || !checking.compareAndSet(false, true)) {
      return;
    }
    long start = ticker.nanoTime();
    link.ping(on).whenComplete((pong, error) -> {
      long millis = (ticker.nanoTime() - start) / 1_000_000;
      if (error == null && millis <= timeout.toMillis()) {
        advice = ""; // one late call (a reconnect, a pause of this JVM), not a slow Redis
      } else if (error == null) {
        String slow = "slow: a PING took " + millis + " ms, sluice.redis.timeout is "
            + timeout.toMillis() + " ms; raise it above the round trip if Redis is this far";
        if (advice.isEmpty()) {
          LOG.warn("Redis at {} is {}", link.where(), slow);
        }
        advice = slow;
      } else {
        replaced++;
        advice = "";
        LOG.warn(
            "Redis at {} did not answer a PING within {} ms: the connection is replaced",
            link.where(),
            link.pingTimeout().toMillis());
        link.replace(on);
      }
      checking.set(false);
    });
  }

  /** A call was answered in time: whatever advice there was no longer holds. */
  void answered() {
    if (!advice.isEmpty()) {
      advice = "";
    }
  }

  /** How many stuck connections were replaced since opening. */
  long replaced() {
    return replaced;
  }

  /** {@code ""}, or the slow-Redis advice for {@code describe()}. */
  String advice() {
    return advice;
  }
}
