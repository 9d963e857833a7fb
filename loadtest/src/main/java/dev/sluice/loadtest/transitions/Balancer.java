package dev.sluice.loadtest.transitions;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The clients and the load balancer in front of the nodes: each request goes to the next node in
 * rotation, on kept-alive HTTP/1.1 connections; a refused connection (nothing sent) is tried on
 * the other nodes in turn, as a load balancer does, and every try is kept. Arrivals are open loop
 * (a Poisson process from a seed), so a stalled node does not slow the load.
 */
final class Balancer implements AutoCloseable {

  /** One request to send. */
  record Call(String method, String path, Map<String, String> headers) {}

  private final HttpClient client;
  private final ExecutorService executor;
  private final Duration timeout;
  private final List<URI> nodes = new CopyOnWriteArrayList<>(); // node n at index n-1
  private final List<Integer> rotation = new CopyOnWriteArrayList<>();
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentLinkedQueue<Figures.Request> done = new ConcurrentLinkedQueue<>();
  private final List<Thread> senders = new CopyOnWriteArrayList<>();
  private volatile boolean sending = true;

  Balancer(Duration timeout) {
    this.timeout = timeout;
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread thread = new Thread(r, "transitions-http");
      thread.setDaemon(true);
      return thread;
    });
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .executor(executor)
        .build();
  }

  HttpClient client() {
    return client;
  }

  /** Adds node {@code n} (1-based) at {@code uri}, in rotation. */
  void add(int n, URI uri) {
    while (nodes.size() < n) {
      nodes.add(null);
    }
    nodes.set(n - 1, uri);
    if (!rotation.contains(n)) {
      rotation.add(n);
    }
  }

  /** Sends one request; completes with its tries once the last one ended. */
  CompletableFuture<Figures.Request> send(Call call) {
    List<Integer> order = new ArrayList<>(rotation);
    if (order.isEmpty()) {
      throw new IllegalStateException("no node in rotation");
    }
    int first = Math.floorMod(next.getAndIncrement(), order.size());
    List<Integer> tryOrder = new ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      tryOrder.add(order.get((first + i) % order.size()));
    }
    open.incrementAndGet();
    CompletableFuture<Figures.Request> request = attempt(call, tryOrder, 0, new ArrayList<>());
    return request.whenComplete((r, e) -> {
      if (r != null) {
        done.add(r);
      }
      open.decrementAndGet();
    });
  }

  private CompletableFuture<Figures.Request> attempt(
      Call call, List<Integer> order, int index, List<Shot> tries) {
    int node = order.get(index);
    return tryOnce(node, call).thenCompose(shot -> {
      tries.add(shot);
      if (shot.failure() == Shot.Failure.REFUSED && index + 1 < order.size()) {
        return attempt(call, order, index + 1, tries);
      }
      return CompletableFuture.completedFuture(new Figures.Request(List.copyOf(tries)));
    });
  }

  private CompletableFuture<Shot> tryOnce(int node, Call call) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(nodes.get(node - 1).resolve(call.path()))
        .timeout(timeout)
        .method(call.method(), HttpRequest.BodyPublishers.noBody());
    call.headers().forEach(builder::header);
    long sent = System.nanoTime();
    return client
        .sendAsync(builder.build(), HttpResponse.BodyHandlers.discarding())
        .handle((response, error) -> {
          long end = System.nanoTime();
          if (response != null) {
            return Shot.answered(
                node,
                sent,
                end,
                response.statusCode(),
                response.headers().firstValue("Retry-After").isPresent(),
                response
                    .headers()
                    .firstValue("Content-Type")
                    .orElse("")
                    .startsWith("application/problem+json"));
          }
          return Shot.failed(node, sent, end, failure(error));
        });
  }

  /** A refused connect, a timeout, or else a request cut on its connection. */
  static Shot.Failure failure(Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof ConnectException) {
      return Shot.Failure.REFUSED;
    }
    if (e instanceof HttpTimeoutException) {
      return Shot.Failure.TIMEOUT;
    }
    if (e instanceof IOException) {
      return Shot.Failure.CUT;
    }
    return Shot.Failure.CUT;
  }

  /**
   * Starts an open-loop stream of {@code ratePerSecond} (Poisson arrivals from {@code seed}) on
   * a thread of its own, until {@link #stop(Duration)}.
   */
  void stream(double ratePerSecond, long seed, Supplier<Call> calls) {
    Thread sender = new Thread(
        () -> {
          Random random = new Random(seed);
          long due = System.nanoTime();
          while (sending) {
            due += (long) (-Math.log(1 - random.nextDouble()) / ratePerSecond * 1e9);
            long wait = due - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait); // the arrival's send time
            }
            if (sending) {
              // its tries are kept when it ends; nothing waits on it here
              CompletableFuture<Figures.Request> unused = send(calls.get());
            }
          }
        },
        "transitions-arrivals");
    sender.setDaemon(true);
    senders.add(sender);
    sender.start();
  }

  /** Stops every stream and waits (up to {@code drain}) for the open requests to end. */
  void stop(Duration drain) throws InterruptedException {
    sending = false;
    for (Thread sender : senders) {
      sender.join();
    }
    long deadline = System.nanoTime() + drain.toNanos();
    while (open.get() > 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(50); // waiting on answers from other processes
    }
  }

  /** Requests still without an answer. */
  int open() {
    return open.get();
  }

  /** The requests that have ended, in the order they ended. */
  List<Figures.Request> requests() {
    return List.copyOf(done);
  }

  @Override
  public void close() {
    sending = false;
    executor.shutdownNow();
  }
}
