package dev.sluice.redis;

import dev.sluice.store.PermitStore;
import dev.sluice.time.Scheduler;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
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
 */
final class PermitNews implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PermitNews.class);
  private static final Duration RETRY = Duration.ofSeconds(1);

  private final Link link;
  private final Scheduler scheduler;
  private final ConcurrentMap<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile StatefulRedisPubSubConnection<String, String> connection;
  private volatile boolean closed;

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
      open.async().subscribe(channel);
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
        opened.async().subscribe(channels);
      }
    });
  }

  @Override
  public void close() {
    closed = true;
    StatefulRedisPubSubConnection<String, String> open = connection;
    if (open != null) {
      open.closeAsync();
    }
  }
}
