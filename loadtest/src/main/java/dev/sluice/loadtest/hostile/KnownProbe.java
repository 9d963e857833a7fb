package dev.sluice.loadtest.hostile;

import dev.sluice.loadtest.sampling.Percentiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * A steady probe of three known actors, one of each kind the rules count (a client IP, an account,
 * an API key), each sending {@link #PER_SECOND} requests a second: far above its rule's rate, so
 * each is held at exactly its allowance, which a state evicted by the flood would hand it again. A probe
 * request carries its actor's known value and new values of the other two kinds, so only its own
 * rule can refuse it. The time of each request, from when it was due (open loop: a slow answer does
 * not delay the next send), goes into the histogram of the phase it was sent in.
 */
final class KnownProbe {

  static final int PER_SECOND = 20;

  /** The three known actors, each named by its rule. */
  enum Actor {
    IP("per-ip", "198.51.100.7"),
    ACCOUNT("per-account", "known-account"),
    API_KEY("per-key", "known-key");

    final String rule;
    final String value;

    Actor(String rule, String value) {
      this.rule = rule;
      this.value = value;
    }
  }

  /** What one actor was answered: allowed and refused, and the first and last send. */
  static final class Tally {
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    volatile long firstNanos;
    volatile long lastNanos;
  }

  private final HttpClient http;
  private final URI uri;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final AtomicLong fresh = new AtomicLong();
  private final Map<Actor, Tally> tallies = new EnumMap<>(Actor.class);
  private volatile Histogram phase;

  KnownProbe(URI service) {
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    this.uri = service.resolve(KeyFlood.PATH.substring(1));
    for (Actor actor : Actor.values()) {
      tallies.put(actor, new Tally());
    }
  }

  /** Starts sending; answers are recorded in {@code first} until {@link #phase} changes it. */
  void start(Histogram first) {
    phase = first;
    long period = 1_000_000_000L / PER_SECOND;
    Actor[] actors = Actor.values();
    for (int i = 0; i < actors.length; i++) {
      Actor actor = actors[i];
      // the three spread over the period, not all at once
      var unused = timer.scheduleAtFixedRate(
          () -> send(actor), period * i / actors.length, period, TimeUnit.NANOSECONDS);
    }
  }

  /** Requests sent from now on are recorded in {@code next}. */
  void phase(Histogram next) {
    phase = next;
  }

  Tally tally(Actor actor) {
    return tallies.get(actor);
  }

  /** A histogram of microseconds up to a minute. */
  static Histogram histogram() {
    return new ConcurrentHistogram(60_000_000L, 3);
  }

  static Percentiles percentiles(Histogram h) {
    return Percentiles.of(h, 1000);
  }

  private void send(Actor actor) {
    long due = System.nanoTime();
    Histogram into = phase;
    long n = fresh.incrementAndGet();
    // fresh values of the other two kinds: 172.16/12 is outside the flood's 10/8
    String ip = actor == Actor.IP
        ? actor.value
        : "172." + (16 + ((n >> 16) & 15)) + "." + ((n >> 8) & 255) + "." + (n & 255);
    String account = actor == Actor.ACCOUNT ? actor.value : "probe-account-" + n;
    String key = actor == Actor.API_KEY ? actor.value : "probe-key-" + n;
    Tally tally = tallies.get(actor);
    if (tally.firstNanos == 0) {
      tally.firstNanos = due;
    }
    tally.lastNanos = due;
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(30))
        .headers(List.of("X-Forwarded-For", ip, "X-Account-Id", account, "X-Api-Key", key)
            .toArray(String[]::new))
        .GET()
        .build();
    var unused = http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .whenComplete((r, e) -> {
          into.recordValue(Math.min(60_000_000L, (System.nanoTime() - due) / 1000));
          if (e != null) {
            tally.other.incrementAndGet();
          } else if (r.statusCode() == 200) {
            tally.allowed.incrementAndGet();
          } else if (r.statusCode() == 429) {
            tally.refused.incrementAndGet();
          } else {
            tally.other.incrementAndGet();
          }
        });
  }

  /** Stops sending and waits (up to 30 s) for the answers in flight. */
  void stop() throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(5, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() - deadline < 0 && !settled()) {
      Thread.sleep(50); // answers of another process in flight; no event to wait on
    }
  }

  private boolean settled() {
    long sent = fresh.get();
    long answered = 0;
    for (Tally t : tallies.values()) {
      answered += t.allowed.get() + t.refused.get() + t.other.get();
    }
    return answered >= sent;
  }
}
