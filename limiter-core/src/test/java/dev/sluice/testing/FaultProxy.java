package dev.sluice.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of a Redis that plays the network faults {@code tc netem} would
 * (not available in the test kernel): a longer round trip, a blackhole (bytes are held, nothing
 * is closed; after {@link #heal()} they flow again, as TCP retransmits after a partition), and a cut
 * (every connection reset, new ones closed at once until healed).
 *
 * <p>Plain sockets on purpose: the faulty network is the thing under test, and no Redis client can
 * hold, delay or reset a live connection. It relays bytes without reading or writing the protocol.
 */
public final class FaultProxy implements AutoCloseable {

  private enum Mode {
    PASS,
    BLACKHOLE,
    CUT
  }

  private static final long RETRANSMIT_NANOS = 200_000_000L;

  private final ServerSocket listener;
  private final int target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final java.util.Set<Socket> frozen = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private Mode mode = Mode.PASS;
  private long delayNanos;
  private double loss;
  private final java.util.Random random = new java.util.Random(42);

  public FaultProxy(int targetPort) throws IOException {
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = targetPort;
    Thread acceptor = new Thread(this::accept, "fault-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public URI uri() {
    return URI.create("redis://127.0.0.1:" + listener.getLocalPort());
  }

  /** Every round trip takes {@code roundTrip} longer: half of it each way. */
  public void delay(Duration roundTrip) {
    synchronized (lock) {
      delayNanos = roundTrip.toNanos() / 2;
      lock.notifyAll();
    }
  }

  /**
   * A {@code fraction} of the chunks is lost once and retransmitted: it arrives a retransmission
   * timeout (200 ms, Linux's minimum) late, and so does everything behind it on its connection.
   */
  public void loss(double fraction) {
    synchronized (lock) {
      loss = fraction;
    }
  }

  /** Nothing gets through either way, and nothing is closed. */
  public void blackhole() {
    synchronized (lock) {
      mode = Mode.BLACKHOLE;
    }
  }

  /**
   * The connections open now go silent for good (their peer froze, or died behind a firewall that
   * drops everything), nothing is closed; new connections pass.
   */
  public void freezeOpen() {
    synchronized (lock) {
      frozen.addAll(open);
    }
  }

  /** Every open connection is reset; new ones are closed at once until {@link #heal()}. */
  public void cut() {
    synchronized (lock) {
      mode = Mode.CUT;
    }
    closeAll();
  }

  /** Back to passing bytes (after the delay in force, no loss); held bytes flow on. */
  public void heal() {
    synchronized (lock) {
      mode = Mode.PASS;
      loss = 0;
      lock.notifyAll();
    }
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        synchronized (lock) {
          if (mode == Mode.CUT) {
            client.setSoLinger(true, 0);
            client.close();
            continue;
          }
        }
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        if (listener.isClosed()) {
          return;
        }
      }
    }
  }

  /** One direction: a reader that stamps each chunk, a writer that sends it when it is due. */
  private void pump(Socket from, Socket to) throws IOException {
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    ArrayDeque<Chunk> queue = new ArrayDeque<>();
    Thread reader = new Thread(
        () -> {
          byte[] buffer = new byte[8192];
          try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
              synchronized (lock) {
                long at = System.nanoTime() + (random.nextDouble() < loss ? RETRANSMIT_NANOS : 0);
                Chunk last = queue.peekLast();
                // in order, as TCP delivers: a retransmitted chunk holds up the ones behind it
                long due = last == null ? at : Math.max(at, last.at);
                queue.add(new Chunk(Arrays.copyOf(buffer, n), due));
                lock.notifyAll();
              }
            }
          } catch (IOException e) {
            // closed
          }
          closeQuietly(to);
        },
        "fault-proxy-read");
    Thread writer = new Thread(
        () -> {
          try {
            while (!to.isClosed()) {
              Chunk next;
              synchronized (lock) {
                next = queue.peek();
                long due = next == null ? 0 : next.at + delayNanos - System.nanoTime();
                boolean held = mode != Mode.PASS || frozen.contains(from);
                if (next == null || held || due > 0) {
                  // waiting is the fault under test: a delay, or a blackhole until healed
                  lock.wait(next == null || held ? 50 : Math.max(1, due / 1_000_000));
                  continue;
                }
                queue.poll();
              }
              out.write(next.bytes);
              out.flush();
            }
          } catch (IOException | InterruptedException e) {
            closeQuietly(from);
          }
        },
        "fault-proxy-write");
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  @SuppressWarnings("ArrayRecordComponent") // private, and never compared, hashed or printed
  private record Chunk(byte[] bytes, long at) {}

  private void closeAll() {
    for (Socket socket : open) {
      try {
        socket.setSoLinger(true, 0); // a reset, as a dropped connection looks to the client
      } catch (IOException e) {
        // already closed
      }
      closeQuietly(socket);
    }
    open.clear();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    closeAll();
  }
}
