package dev.sluice.javalin;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices HTTP/1.x clients of Javalin's Jetty that close their connection while the server still
 * works for them: the plugin watches a request while it waits in a queue, and an application may
 * watch one while its handler runs a long job (the demo's transcodes).
 *
 * <p>Jetty does not watch a suspended HTTP/1.1 connection for reads (jetty/jetty.project#238), nor
 * one whose request is being handled, so a vanished client would keep its queue slot until its
 * turn, and then make the server do its work for nobody. This registers the request's socket with
 * a second selector (a channel may be registered with several; Jetty's stays untouched): readable
 * with nothing to read means the peer closed. Nothing is ever read, so request bodies and
 * pipelined requests stay untouched; a readable socket with data is simply no longer watched, so
 * an application watches a request once it has read its body. TLS and HTTP/2 connections are not
 * watched (HTTP/2 reports resets). One thread per watch, started with the first request watched.
 */
public final class DisconnectWatch implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  private static void nothing() {}

  private final Executor executor;
  private final Queue<Runnable> changes = new ConcurrentLinkedQueue<>();
  private Selector selector;
  private volatile boolean closed;

  /** A watch that runs each {@code onGone} on {@code executor}. */
  public DisconnectWatch(Executor executor) {
    this.executor = executor;
  }

  /**
   * Runs {@code onGone} (on the executor) if the client closes the request's connection; the
   * returned handle stops watching. A request that cannot be watched gets a handle doing nothing.
   */
  public Runnable watch(HttpServletRequest request, Runnable onGone) {
    SocketChannel channel = channelOf(request);
    if (channel == null || closed || !started()) {
      return DisconnectWatch::nothing;
    }
    AtomicBoolean stopped = new AtomicBoolean();
    AtomicReference<SelectionKey> key = new AtomicReference<>();
    Runnable gone = () -> executor.execute(onGone);
    change(() -> {
      if (!stopped.get()) {
        try {
          key.set(channel.register(selector, SelectionKey.OP_READ, gone));
        } catch (ClosedChannelException e) {
          gone.run();
        } catch (IllegalStateException e) { // blocking mode, cancelled key
          // this channel cannot be watched; the queue timeout still bounds the wait
        }
      }
    });
    return () -> {
      if (stopped.compareAndSet(false, true)) {
        change(() -> {
          SelectionKey k = key.get();
          if (k != null) {
            k.cancel();
          }
        });
      }
    };
  }

  private static SocketChannel channelOf(HttpServletRequest request) {
    try {
      ServletContextRequest core = ServletContextRequest.getServletContextRequest(request);
      HttpVersion version = core.getConnectionMetaData().getHttpVersion();
      if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
        return null;
      }
      EndPoint endPoint = core.getConnectionMetaData().getConnection().getEndPoint();
      return endPoint instanceof SocketChannelEndPoint socket ? socket.getChannel() : null;
    } catch (RuntimeException e) {
      return null; // not Jetty's ee10 request (a test double, another container): not watched
    }
  }

  private synchronized boolean started() {
    if (selector != null) {
      return true;
    }
    try {
      selector = Selector.open();
    } catch (IOException e) {
      log.warn("Sluice cannot watch for vanished clients: {}", e.toString());
      closed = true;
      return false;
    }
    Thread thread = new Thread(this::loop, "sluice-disconnect-watch");
    thread.setDaemon(true);
    thread.start();
    return true;
  }

  private void change(Runnable change) {
    changes.add(change);
    selector.wakeup();
  }

  private void loop() {
    while (!closed) {
      try {
        selector.select();
        for (Runnable change; (change = changes.poll()) != null; ) {
          change.run();
        }
        for (SelectionKey key : selector.selectedKeys()) {
          key.cancel(); // one verdict per registration: readiness would otherwise fire forever
          if (key.channel() instanceof SocketChannel channel && peerClosed(channel)) {
            ((Runnable) key.attachment()).run();
          }
        }
        selector.selectedKeys().clear();
      } catch (IOException | RuntimeException e) {
        log.warn("Sluice disconnect watch failed; vanished clients are no longer noticed", e);
        closed = true;
      }
    }
    try {
      selector.close();
    } catch (IOException e) {
      // closing on the way out: nothing left to watch
    }
  }

  /** Readable and nothing to read: the peer closed (FIONREAD; reads nothing). */
  private static boolean peerClosed(SocketChannel channel) {
    try {
      return channel.socket().getInputStream().available() == 0;
    } catch (IOException e) {
      return true;
    }
  }

  /** Stops watching every request and ends the watch's thread. */
  @Override
  public synchronized void close() {
    closed = true;
    if (selector != null) {
      selector.wakeup();
    }
  }
}
