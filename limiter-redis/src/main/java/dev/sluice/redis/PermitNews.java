package dev.sluice.redis;

import dev.sluice.store.PermitStore;
import dev.sluice.time.Scheduler;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells this node's waiting limiters when a permit may have come free anywhere: the lease scripts
 * PUBLISH on {@code sluice:permits:{<limiter>}:freed} when a lease is released, expires or a
 * waiter leaves the line, and this subscribes to the channels of the limiters that watch. Pub/sub
 * rather than keyspace notifications because those need {@code notify-keyspace-events} set on the
 * server, which a managed Redis may forbid.
 *
 * <p>Messages can be lost (pub/sub is fire-and-forget, and a reconnect misses what was published
 * meanwhile); the limiter's slow poll is the safety net. Also called directly for permits released
 * locally while Redis is down.
 *
 * <p>A subscribed connection sends nothing of its own, so a peer that stopped answering without
 * closing (a frozen Redis, a blackhole, a dead peer behind a firewall) would never be noticed: every
 * notice would be lost for as long as TCP keeps the socket (many minutes), and after a Sentinel
 * failover the node would stay subscribed to the old master. So while anything is subscribed the
 * connection is asked a PING every {@link #CHECK_EVERY}, bounded by the connect timeout as the
 * command connection's check is ({@link StallCheck}); one unanswered in time gets the connection
 * replaced and every channel subscribed again on the new one.
 */
final class PermitNews implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PermitNews.class);
  /** How long after a failed attempt the pub/sub connection is tried again. */
  static final Duration RETRY = Duration.ofSeconds(1);
  /** How often a subscribed connection is asked whether its peer still answers. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  private final Link link;
  private final Scheduler scheduler;
  private final ConcurrentMap<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile StatefulRedisPubSubConnection<String, String> connection;
  private final AtomicBoolean checking = new AtomicBoolean();
  private final AtomicLong replaced = new AtomicLong();
  private volatile boolean closed;
  private volatile Scheduler.Cancellable check;

  PermitNews(Link link, Scheduler scheduler) {
    this.link = link;
    this.scheduler = scheduler;
  }

  PermitStore.Watch watch(String limiter, Runnable listener) {
    String channel = KeyLayout.permitsFreed(limiter);
    List<Runnable> list = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
    list.add(listener);
    StatefulRedisPubSubConnection<String, String> open = connection;
    if (open != null) {
      // a lost SUBSCRIBE only costs wake-ups: the limiter's slow poll still finds freed permits
      open.async().subscribe(channel).exceptionally(error -> {
        LOG.debug("subscribing to {} failed", channel, error);
        return null;
      });
    } else {
      connect();
    }
    return () -> list.remove(listener);
  }

  /** A permit of {@code limiter} came free on this node without Redis (local share). */
  void freedLocally(String limiter) {
    deliver(KeyLayout.permitsFreed(limiter));
  }

  private void deliver(String channel) {
    List<Runnable> list = listeners.get(channel);
    if (list != null) {
      for (Runnable listener : list) {
        try {
          listener.run();
        } catch (RuntimeException e) {
          LOG.debug("a permit listener failed", e);
        }
      }
    }
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void connect() {
    if (closed || connection != null || !connecting.compareAndSet(false, true)) {
      return;
    }
    link.connectPubSub().whenComplete((opened, error) -> {
      if (opened == null) {
        connecting.set(false);
        LOG.debug("pub/sub connection failed; trying again in {}", RETRY, error);
        if (!closed) {
          scheduler.schedule(this::connect, RETRY.toNanos());
        }
        return;
      }
      opened.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          deliver(channel);
        }
      });
      connection = opened;
      connecting.set(false);
      if (closed) {
        opened.closeAsync();
        return;
      }
      String[] channels = listeners.keySet().toArray(String[]::new);
      if (channels.length > 0) {
        opened.async().subscribe(channels).exceptionally(failure -> {
          LOG.debug("subscribing to {} channels failed", channels.length, failure);
          return null;
        });
      }
      if (check == null) {
        check = scheduler.every(CHECK_EVERY.toNanos(), this::checkPeer);
      }
    });
  }

  /**
   * Asks the subscribed connection for a PING (one at a time). Only a timeout replaces it: a
   * connection that closed is being reconnected by Lettuce, and its PING is refused at once.
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void checkPeer() {
    StatefulRedisPubSubConnection<String, String> open = connection;
    if (closed || open == null || listeners.isEmpty() || !checking.compareAndSet(false, true)) {
      return;
    }
    java.util.concurrent.CompletableFuture<String> pong;
    try {
      pong = open.async().ping().toCompletableFuture();
    } catch (RuntimeException e) {
      checking.set(false);
      return;
    }
    pong.whenComplete((answer, error) -> {
      checking.set(false);
      Throwable cause =
          error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
      if (cause instanceof RedisCommandTimeoutException) {
        replace(open);
      }
    });
  }

  /** Closes {@code stuck} if it is still the connection, and opens a new one that subscribes again. */
  // closing a replaced or late connection: a failed close leaves nothing to undo; connect() records
  // its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  private void replace(StatefulRedisPubSubConnection<String, String> stuck) {
    synchronized (this) {
      if (connection != stuck || closed) {
        return;
      }
      connection = null;
    }
    replaced.incrementAndGet();
    LOG.warn(
        "Redis at {} did not answer a PING on the pub/sub connection within {} ms: the "
            + "connection is replaced",
        link.where(),
        link.pingTimeout().toMillis());
    stuck.closeAsync();
    connect();
  }

  /** How many silent pub/sub connections were replaced since opening. */
  long replaced() {
    return replaced.get();
  }

  @Override
  // closing a replaced or late connection: a failed close leaves nothing to undo; connect() records
  // its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  public void close() {
    closed = true;
    Scheduler.Cancellable running = check;
    if (running != null) {
      running.cancel();
    }
    StatefulRedisPubSubConnection<String, String> open = connection;
    if (open != null) {
      open.closeAsync();
    }
  }
}
