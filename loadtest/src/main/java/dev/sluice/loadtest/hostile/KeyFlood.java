package dev.sluice.loadtest.hostile;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Requests as fast as this machine can send them, each from a client IP, an account and an API key
 * never seen before: request {@code k} carries {@code X-Forwarded-For: 10.a.b.c} (k in base 256),
 * {@code X-Account-Id: a<k>} and {@code X-Api-Key: k<k>}. Or, for comparison, the same requests
 * over a fixed set of keys ({@link #ofKnown}): request {@code k} then carries the keys of {@code k
 * mod n} from their own range ({@code 11.a.b.c}, {@code c<k>}, {@code d<k>}), so after the first
 * {@code n} requests every key is known. Each sender thread pipelines batches of
 * requests on one keep-alive connection and reads a batch's answers before writing the next, so
 * neither side's buffers fill; a connection the server closes is opened again.
 */
final class KeyFlood implements AutoCloseable {

  static final int BATCH = 256;
  static final String PATH = "/api/history/1";

  private final URI service;
  private final long total;
  private final long distinct;
  private final int firstOctet;
  private final String accountPrefix;
  private final String apiKeyPrefix;
  private final AtomicLong next = new AtomicLong();
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLongArray statuses = new AtomicLongArray(600);
  private final AtomicLong connectionErrors = new AtomicLong();
  private final List<Thread> senders = new ArrayList<>();
  private volatile boolean stopped;

  /** {@code total} requests, hence {@code total} new keys of each kind. */
  KeyFlood(URI service, long total) {
    this(service, total, total, 10, "a", "k");
  }

  private KeyFlood(
      URI service,
      long total,
      long distinct,
      int firstOctet,
      String accountPrefix,
      String apiKeyPrefix) {
    this.service = service;
    this.total = total;
    this.distinct = distinct;
    this.firstOctet = firstOctet;
    this.accountPrefix = accountPrefix;
    this.apiKeyPrefix = apiKeyPrefix;
  }

  /** {@code total} requests over {@code distinct} keys of each kind, none of the hostile ones. */
  static KeyFlood ofKnown(URI service, long total, long distinct) {
    return new KeyFlood(service, total, distinct, 11, "c", "d");
  }

  void start(int threads) {
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(this::send, "key-flood-" + i);
      t.setDaemon(true);
      senders.add(t);
      t.start();
    }
  }

  /** Waits until every request was sent and answered, or {@code deadlineNanos} passed. */
  void await(long deadlineNanos) throws InterruptedException {
    for (Thread t : senders) {
      long left = deadlineNanos - System.nanoTime();
      if (left > 0) {
        t.join(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Whether every request was sent and answered (or lost with its connection). */
  boolean done() {
    return senders.stream().noneMatch(Thread::isAlive);
  }

  /** Requests sent (each with three new keys). */
  long sent() {
    return Math.min(next.get(), total);
  }

  long answered() {
    return answered.get();
  }

  long connectionErrors() {
    return connectionErrors.get();
  }

  /** Answers by status, e.g. {@code 200 -> 999000}. */
  Map<Integer, Long> statuses() {
    Map<Integer, Long> byStatus = new TreeMap<>();
    for (int i = 0; i < statuses.length(); i++) {
      if (statuses.get(i) > 0) {
        byStatus.put(i, statuses.get(i));
      }
    }
    return byStatus;
  }

  private void send() {
    while (!stopped && next.get() < total) {
      try (Socket socket =
          new Socket(InetAddress.getByName(service.getHost()), service.getPort())) {
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        StringBuilder requests = new StringBuilder(BATCH * 128);
        while (!stopped) {
          long first = next.getAndAdd(BATCH);
          if (first >= total) {
            return;
          }
          int n = (int) Math.min(BATCH, total - first);
          requests.setLength(0);
          for (long k = first; k < first + n; k++) {
            request(requests, k);
          }
          out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
          out.flush();
          for (int i = 0; i < n; i++) {
            int status = readAnswer(in);
            statuses.incrementAndGet(status < statuses.length() ? status : 0);
            answered.incrementAndGet();
          }
        }
      } catch (IOException | RuntimeException e) {
        connectionErrors.incrementAndGet(); // the batch's unanswered requests are not sent again
      }
    }
  }

  private void request(StringBuilder b, long request) {
    long k = request % distinct;
    b.append("GET ")
        .append(PATH)
        .append(" HTTP/1.1\r\nHost: ")
        .append(service.getHost())
        .append("\r\nX-Forwarded-For: ")
        .append(firstOctet)
        .append('.')
        .append((k >> 16) & 255)
        .append('.')
        .append((k >> 8) & 255)
        .append('.')
        .append(k & 255)
        .append("\r\nX-Account-Id: ")
        .append(accountPrefix)
        .append(k)
        .append("\r\nX-Api-Key: ")
        .append(apiKeyPrefix)
        .append(k)
        .append("\r\n\r\n");
  }

  /** Reads one HTTP/1.1 answer (length-delimited or chunked); its status. */
  static int readAnswer(InputStream in) throws IOException {
    String statusLine = line(in);
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long length = 0;
    boolean chunked = false;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      String lower = header.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring("content-length:".length()).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    if (chunked) {
      for (long size = chunkSize(line(in)); size > 0; size = chunkSize(line(in))) {
        skip(in, size);
        line(in);
      }
      for (String trailer = line(in); !trailer.isEmpty(); trailer = line(in)) {
        // trailers: none expected, read and dropped
      }
    } else {
      skip(in, length);
    }
    return status;
  }

  private static long chunkSize(String line) {
    int extension = line.indexOf(';');
    return Long.parseLong((extension < 0 ? line : line.substring(0, extension)).trim(), 16);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed mid-answer");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private static void skip(InputStream in, long n) throws IOException {
    long left = n;
    while (left > 0) {
      long skipped = in.skip(left);
      if (skipped <= 0) {
        if (in.read() < 0) {
          throw new IOException("connection closed mid-body");
        }
        skipped = 1;
      }
      left -= skipped;
    }
  }

  @Override
  public void close() {
    stopped = true;
    for (Thread t : senders) {
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
