package dev.sluice.loadtest.jepsen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads each node's {@code /sluice} every {@value #EVERY_MILLIS} ms: whether its store is up (on
 * Redis), and its count of decisions made without Redis. A count that went up is a decision made
 * on the local share; outside a fault it is a slow call (the Redis timeout ran out first), which
 * the failure table allows one permit for, so the times are kept for the check.
 */
final class NodeWatch implements AutoCloseable {

  static final long EVERY_MILLIS = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> nodes;
  private final HttpClient http;
  private final long origin;
  private final boolean[] up;
  private final long[] degraded;
  private final ConcurrentLinkedQueue<Long> slowCalls = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  NodeWatch(List<URI> nodes, HttpClient http, long origin) {
    this.nodes = List.copyOf(nodes);
    this.http = http;
    this.origin = origin;
    this.up = new boolean[nodes.size()];
    this.degraded = new long[nodes.size()];
    java.util.Arrays.fill(degraded, -1);
    this.thread = new Thread(this::loop, "jepsen-watch");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Whether every node's last reading said its store was up. */
  synchronized boolean allUp() {
    for (boolean u : up) {
      if (!u) {
        return false;
      }
    }
    return true;
  }

  /** When a node was seen to have decided without Redis, on the run's clock. */
  List<Long> slowCalls() {
    return List.copyOf(slowCalls);
  }

  /**
   * Waits up to {@code timeout} for every node to be up on Redis.
   *
   * @return whether they were
   */
  boolean awaitAllUp(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!allUp()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(20_000_000L); // polling the readings the watch thread makes
    }
    return true;
  }

  private void loop() {
    while (running) {
      long round = System.nanoTime();
      for (int n = 0; n < nodes.size(); n++) {
        read(n);
      }
      long left = round + EVERY_MILLIS * 1_000_000 - System.nanoTime();
      if (left > 0) {
        LockSupport.parkNanos(left); // the polling cadence
      }
    }
  }

  private void read(int n) {
    try {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(nodes.get(n).resolve("/sluice"))
              .timeout(Duration.ofSeconds(1))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode store = JSON.readTree(response.body()).path("store");
      long count = store.path("degradedDecisions").asLong(-1);
      long at = System.nanoTime() - origin;
      synchronized (this) {
        up[n] = "up".equals(store.path("state").asText());
        // a restarted node counts from 0 again
        for (long i = Math.max(0, degraded[n]); degraded[n] >= 0 && i < count; i++) {
          slowCalls.add(at);
        }
        degraded[n] = count;
      }
    } catch (IOException e) {
      synchronized (this) {
        up[n] = false; // paused, restarting, or too slow to answer: not known to be on Redis
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
