package dev.sluice.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a Redis that holds back the server's first reply on each connection for
 * {@code delay}: a connection handshake as slow as on a machine with both cores busy, made
 * deterministic. Everything after the first reply flows at once.
 *
 * <p>Plain sockets on purpose: the slow peer is the thing under test, and no Redis client can hold
 * back a server's reply. It relays bytes without reading or writing the protocol.
 */
final class SlowProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int target;
  private final Duration delay;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  SlowProxy(int targetPort, Duration delay) throws IOException {
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = targetPort;
    this.delay = delay;
    Thread acceptor = new Thread(this::accept, "slow-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri() {
    return URI.create("redis://127.0.0.1:" + listener.getLocalPort());
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(server);
        pump(client.getInputStream(), server.getOutputStream(), Duration.ZERO);
        pump(server.getInputStream(), client.getOutputStream(), delay);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void pump(InputStream in, OutputStream out, Duration firstDelay) {
    Thread thread = new Thread(
        () -> {
          byte[] buffer = new byte[8192];
          boolean first = true;
          try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
              if (first && !firstDelay.isZero()) {
                Thread.sleep(
                    firstDelay.toMillis()); // the slowness under test, not a synchronisation
              }
              first = false;
              out.write(buffer, 0, n);
              out.flush();
            }
          } catch (IOException | InterruptedException e) {
            // connection closed
          }
        },
        "slow-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket socket : open) {
      socket.close();
    }
  }
}
