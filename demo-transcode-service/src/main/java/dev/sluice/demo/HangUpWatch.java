package dev.sluice.demo;

import io.javalin.http.Context;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;

/**
 * Tells a running job whether its HTTP/1.x client has closed the connection.
 *
 * <p>Jetty does not read a connection while its request is being handled, so a client that hangs
 * up mid-transcode would go unnoticed until the answer is written, and the service would spend the
 * whole transcode on nobody. The job's socket is registered, for reading, with a selector of its own
 * (a channel may be registered with several, Jetty's stays untouched): readable with nothing to read
 * means the peer closed. Nothing is read, so a pipelined next request is left alone (the watch just
 * stops). Only asked once the body has been read in full, so upload bytes never count as readable.
 * TLS and HTTP/2 connections are not watched ({@link #clientGone} is then always false).
 */
final class HangUpWatch implements AutoCloseable {

  private final SocketChannel channel;
  private Selector selector;
  private boolean unsure;

  private HangUpWatch(SocketChannel channel) {
    this.channel = channel;
  }

  static HangUpWatch of(Context ctx) {
    return new HangUpWatch(channelOf(ctx));
  }

  /** True once the client is known to have closed its side of the connection. */
  boolean clientGone() {
    if (channel == null || unsure) {
      return false;
    }
    if (!channel.isOpen()) {
      return true;
    }
    try {
      if (selector == null) {
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
      }
      if (selector.selectNow() == 0) {
        selector.selectedKeys().clear();
        return false;
      }
      selector.selectedKeys().clear();
      if (channel.socket().getInputStream().available() == 0) {
        return true;
      }
      unsure = true; // data waiting: a pipelined request, not a hang-up; stop asking
      return false;
    } catch (IOException e) {
      return true;
    } catch (RuntimeException e) { // a blocking channel, a cancelled key: cannot be watched
      unsure = true;
      return false;
    }
  }

  @Override
  public void close() {
    if (selector != null) {
      try {
        selector.close(); // deregisters the channel from this selector only
      } catch (IOException e) {
        // nothing left to watch
      }
    }
  }

  private static SocketChannel channelOf(Context ctx) {
    try {
      ServletContextRequest core = ServletContextRequest.getServletContextRequest(ctx.req());
      HttpVersion version = core.getConnectionMetaData().getHttpVersion();
      if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
        return null;
      }
      EndPoint endPoint = core.getConnectionMetaData().getConnection().getEndPoint();
      return endPoint instanceof SocketChannelEndPoint socket ? socket.getChannel() : null;
    } catch (RuntimeException e) {
      return null; // not Jetty's ee10 request: not watched, the transcode timeout still bounds the
      // job
    }
  }
}
