package dev.sluice.client;

import dev.sluice.rate.RateLimit;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * An HTTP client that paces itself for a throttled service, over {@link HttpClient#sendAsync}.
 *
 * <ul>
 *   <li>Sends at most the configured pace, evenly spaced by the core's leaky-bucket shaper (see
 *       {@link Pacer}); a timer on the injected {@link Scheduler} wakes the client for the next slot,
 *       so no thread sleeps and none waits per record.
 *   <li>At most {@code maxConcurrency} requests on the wire and {@code maxQueue} records waiting: a
 *       full queue makes {@link #submit} throw {@link SubmissionRejectedException} (QUEUE_FULL).
 *   <li>Learns from responses: an advertised pace ({@code RateLimit-Policy}, {@code X-RateLimit-Limit}
 *       ...) lowers the pace, never above the ceiling; an exhausted quota or a {@code Retry-After}
 *       pauses that destination (scheme, host and port) for the time asked.
 *   <li>A 429 or 503 is retried, after the pause or an exponential backoff with full jitter, at most
 *       {@code maxAttempts} tries and only while the {@link RetryBudget} pays for it; optionally Google
 *       SRE client-side throttling sheds records locally. Any other answer (2xx, 4xx, 500...) and any
 *       I/O error is returned as is, never retried.
 * </ul>
 *
 * <p>The future of {@link #submit} completes with the last response (a 429 when retries ran out), or
 * exceptionally with the transport's error. One lock guards the queue, the reservations and the
 * in-flight count: every operation under it is a few field updates, never I/O or user code, and it
 * keeps "a slot is reserved only for a record that has a concurrency permit" a single invariant.
 */
public final class PacedClient implements AutoCloseable {

  private final Transport transport;
  private final PacedClientConfig config;
  private final NanoClock clock;
  private final Scheduler scheduler;
  private final ClientListener listener;
  private final RateLimitHeaders headers;
  private final Clock wall;
  private final Retries retries;
  private final ClientSideThrottle throttle; // null: off

  private final Object lock = new Object();
  private final ArrayDeque<Job<?>> queue = new ArrayDeque<>();
  private final ArrayDeque<Job<?>> reserved = new ArrayDeque<>();
  private final Map<String, Long> pausedUntil = new HashMap<>();
  private final Pacer pacer;
  private int inFlight;
  private RateLimit ceiling;
  private RateLimit advertised;
  private RateLimit effective;
  private Scheduler.Cancellable timer;
  private long timerAt;
  private boolean closed;

  private PacedClient(Builder b) {
    this.transport = b.transport;
    this.config = b.config;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.listener = b.listener;
    this.headers = new RateLimitHeaders(b.wall, config.xRateLimitWindow());
    this.wall = b.wall;
    this.retries = new Retries(config, b.random, listener);
    this.throttle = config.throttlingK() == 0
        ? null
        : new ClientSideThrottle(
            config.throttlingK(), config.throttlingWindow().toNanos(), clock, b.random);
    this.pacer = new Pacer(clock, config.lookahead().toNanos());
    this.ceiling = config.pace();
    synchronized (lock) {
      repace();
    }
  }

  /** A client over {@code http} with the system clock and scheduler. */
  public static PacedClient of(HttpClient http, PacedClientConfig config) {
    return builder(http).config(config).build();
  }

  /** Starts a client over {@code http}; clock, scheduler, randomness and listener are injectable. */
  public static Builder builder(HttpClient http) {
    if (http == null) {
      throw new IllegalArgumentException("http client must not be null");
    }
    return new Builder(Transport.of(http));
  }

  static Builder builder(Transport transport) {
    return new Builder(transport);
  }

  /**
   * Queues {@code request} for its turn.
   *
   * @return the response the record finally got (after any retries), or the transport's error; a
   *     record shed by client-side throttling fails with {@link SubmissionRejectedException}
   * @throws SubmissionRejectedException when the queue is full (push-back: submit later) or the
   *     client is closed
   */
  public <T> CompletableFuture<HttpResponse<T>> submit(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    if (request == null || handler == null) {
      throw new IllegalArgumentException("request and handler must not be null");
    }
    Job<T> job = new Job<>(request, handler);
    job.submittedNanos = clock.nanoTime();
    synchronized (lock) {
      if (closed) {
        throw new SubmissionRejectedException(
            SubmissionRejectedException.Reason.CLOSED, "the paced client is closed");
      }
      if (queue.size() >= config.maxQueue()) {
        throw new SubmissionRejectedException(
            SubmissionRejectedException.Reason.QUEUE_FULL,
            "the submission queue is full (maxQueue=" + config.maxQueue()
                + "); submit again later");
      }
    }
    if (throttle != null && throttle.rejectLocally()) {
      listener.onRejectedLocally();
      job.result.completeExceptionally(new SubmissionRejectedException(
          SubmissionRejectedException.Reason.THROTTLED_LOCALLY,
          "client-side throttling: the service refused too many recent requests"));
      return job.result;
    }
    synchronized (lock) {
      queue.addLast(job);
    }
    pump();
    return job.result;
  }

  /**
   * Changes the ceiling: from now on at most {@code permits} per {@code period} (the partition
   * leases set it to partitions held x rate). {@code permits == 0} holds every send until raised.
   */
  public void changeCeiling(long permits, Duration period) {
    if (permits < 0) {
      throw new IllegalArgumentException("ceiling permits must be >= 0 but was " + permits);
    }
    synchronized (lock) {
      ceiling = permits == 0 ? null : RateLimit.of(permits, period);
      repace();
    }
    pump();
  }

  /** The pace in force, in permits per second (0 while held). */
  public double pacePerSecond() {
    synchronized (lock) {
      return effective == null ? 0 : RateLimitAdvice.perSecond(effective);
    }
  }

  /** Records waiting for their turn (not counting those whose slot is reserved). */
  public int queued() {
    synchronized (lock) {
      return queue.size();
    }
  }

  /** Records with a reserved slot or on the wire. */
  public int inFlight() {
    synchronized (lock) {
      return inFlight;
    }
  }

  /** Retries the budget could pay for now. */
  public long retriesAvailable() {
    return retries.available();
  }

  /**
   * Stops: refuses new records and fails the waiting ones with {@link SubmissionRejectedException}
   * (CLOSED); requests already on the wire complete normally.
   */
  @Override
  public void close() {
    List<Job<?>> dropped = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
      dropped.addAll(reserved);
      dropped.addAll(queue);
      inFlight -= reserved.size();
      reserved.clear();
      queue.clear();
    }
    for (Job<?> job : dropped) {
      job.result.completeExceptionally(new SubmissionRejectedException(
          SubmissionRejectedException.Reason.CLOSED,
          "the paced client closed before this record was sent"));
    }
  }

  /** Sends what is due, reserves what the pace and the concurrency allow, and sets the next wake-up. */
  private void pump() {
    List<Job<?>> due = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      long now = clock.nanoTime();
      List<Job<?>> paused = new ArrayList<>();
      while (!reserved.isEmpty() && reserved.peekFirst().slot - now <= 0) {
        Job<?> job = reserved.pollFirst();
        if (pausedAt(job.destination, now)) {
          paused.add(job); // a pause that came after the reservation wins; the slot is forfeited
          inFlight--;
        } else {
          due.add(job);
        }
      }
      for (int i = paused.size() - 1; i >= 0; i--) {
        queue.addFirst(paused.get(i));
      }
      long wake = Long.MAX_VALUE;
      boolean wakeSet = false;
      while (!queue.isEmpty() && inFlight < config.maxConcurrency()) {
        Job<?> head = queue.peekFirst();
        Long until = pausedUntil.get(head.destination);
        if (until != null && until - now > 0) {
          wake = earlier(wakeSet, wake, until);
          wakeSet = true;
          break;
        }
        Pacer.Slot slot = pacer.tryReserve(now);
        if (!slot.reserved()) {
          if (slot.delayNanos() >= 0) {
            wake = earlier(wakeSet, wake, now + slot.delayNanos());
            wakeSet = true;
          }
          break; // no pace: changeCeiling pumps again
        }
        queue.pollFirst();
        inFlight++;
        if (slot.delayNanos() == 0) {
          due.add(head);
        } else {
          head.slot = now + slot.delayNanos();
          reserved.addLast(head);
        }
      }
      if (!reserved.isEmpty()) {
        wake = earlier(wakeSet, wake, reserved.peekFirst().slot);
        wakeSet = true;
      }
      if (wakeSet) {
        arm(now, wake);
      }
    }
    for (Job<?> job : due) {
      send(job);
    }
  }

  private static long earlier(boolean set, long current, long candidate) {
    return !set || candidate - current < 0 ? candidate : current;
  }

  private boolean pausedAt(String destination, long now) {
    Long until = pausedUntil.get(destination);
    if (until == null) {
      return false;
    }
    if (until - now > 0) {
      return true;
    }
    pausedUntil.remove(destination);
    return false;
  }

  /** One timer at most: replaced only by an earlier wake-up. Under the lock. */
  private void arm(long now, long at) {
    if (timer != null && timerAt - at <= 0) {
      return;
    }
    if (timer != null) {
      timer.cancel();
    }
    timerAt = at;
    timer = scheduler.schedule(
        () -> {
          synchronized (lock) {
            timer = null;
          }
          pump();
        },
        Math.max(0, at - now));
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> void send(Job<T> job) {
    job.attempts++;
    if (job.attempts == 1) {
      retries.firstAttempt();
    }
    listener.onSend();
    CompletableFuture<HttpResponse<T>> answer;
    try {
      HttpRequest request = withBudget(job);
      answer = request == null
          ? CompletableFuture.failedFuture(new java.net.http.HttpTimeoutException(
              "the request's timeout was spent before it could be sent"))
          : transport.send(request, job.handler);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((response, error) -> answered(job, response, error));
  }

  private <T> void answered(Job<T> job, HttpResponse<T> response, Throwable error) {
    long retry = Retries.GIVE_UP;
    synchronized (lock) {
      inFlight--;
    }
    if (error != null) {
      job.result.completeExceptionally(error);
    } else {
      int status = response.statusCode();
      boolean throttled = status == 429 || status == 503;
      RateLimitAdvice advice =
          config.learnFromHeaders() ? headers.read(response.headers()) : retryAfterOnly(response);
      learn(job.destination, advice);
      if (!throttled) {
        if (throttle != null) {
          throttle.accepted();
        }
        job.result.complete(response);
      } else {
        listener.onThrottled(status);
        retry = retries.afterThrottled(job.attempts, advice.pause());
        if (retry == Retries.GIVE_UP) {
          job.result.complete(response);
        }
      }
    }
    if (retry == 0) {
      requeueFirst(job); // the destination's pause holds it, on the client's one timer
    } else if (retry > 0) {
      // no pause asked for: this record backs off alone (one task per retry, bounded by the budget)
      scheduler.schedule(() -> requeueFirst(job), retry);
    }
    pump();
  }

  private RateLimitAdvice retryAfterOnly(HttpResponse<?> response) {
    return RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), wall)
        .map(pause -> new RateLimitAdvice(java.util.Optional.empty(), pause))
        .orElse(RateLimitAdvice.NONE);
  }

  private void requeueFirst(Job<?> job) {
    boolean dropped;
    synchronized (lock) {
      dropped = closed;
      if (!closed) {
        queue.addFirst(job); // it was admitted once: the queue bound does not apply again
      }
    }
    if (dropped) {
      job.result.completeExceptionally(new SubmissionRejectedException(
          SubmissionRejectedException.Reason.CLOSED, "the paced client closed before the retry"));
    } else {
      pump();
    }
  }

  private void learn(String destination, RateLimitAdvice advice) {
    if (RateLimitAdvice.NONE.equals(advice)) {
      return;
    }
    synchronized (lock) {
      if (advice.pace().isPresent() && !advice.pace().get().equals(advertised)) {
        advertised = advice.pace().get();
        repace();
      }
      if (!advice.pause().isZero()) {
        long until = clock.nanoTime() + advice.pause().toNanos();
        Long current = pausedUntil.get(destination);
        if (current == null || until - current > 0) {
          pausedUntil.put(destination, until);
        }
      }
    }
  }

  /** Recomputes the pace in force: the ceiling, lowered to the advertised pace. Under the lock. */
  private void repace() {
    RateLimit next = ceiling;
    if (next != null
        && advertised != null
        && RateLimitAdvice.perSecond(advertised) < RateLimitAdvice.perSecond(next)) {
      next = RateLimit.of(advertised.limit(), advertised.period());
    }
    if (next == null ? effective == null : next.equals(effective)) {
      return;
    }
    effective = next;
    pacer.setPace(next);
    listener.onPace(next == null ? 0 : RateLimitAdvice.perSecond(next));
  }

  /**
   * The request as sent: with the deadline header (its timeout less the time spent here) when
   * configured; null when nothing of the budget is left.
   */
  private HttpRequest withBudget(Job<?> job) {
    String header = config.deadlineHeader().orElse(null);
    if (header == null || job.request.timeout().isEmpty()) {
      return job.request;
    }
    long budget = job.request.timeout().get().toNanos() - (clock.nanoTime() - job.submittedNanos);
    long millis = budget / 1_000_000;
    if (millis <= 0) {
      return null;
    }
    return HttpRequest.newBuilder(job.request, (name, value) -> !name.equalsIgnoreCase(header))
        .header(header, Long.toString(millis))
        .timeout(Duration.ofMillis(millis))
        .build();
  }

  private static String destination(HttpRequest request) {
    var uri = request.uri();
    return uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort();
  }

  private static final class Job<T> {
    final HttpRequest request;
    final HttpResponse.BodyHandler<T> handler;
    final String destination;
    final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    int attempts;
    long slot;
    long submittedNanos;

    Job(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      this.request = request;
      this.handler = handler;
      this.destination = destination(request);
    }
  }

  /** Configures a {@link PacedClient}; setters validate at once. */
  public static final class Builder {
    private final Transport transport;
    private PacedClientConfig config = PacedClientConfig.ofDefaults();
    private NanoClock clock = NanoClock.system();
    private Scheduler scheduler = Scheduler.system();
    private Clock wall = Clock.systemUTC();
    private RandomGenerator random = RandomGenerator.getDefault();
    private ClientListener listener = ClientListener.NONE;

    private Builder(Transport transport) {
      this.transport = transport;
    }

    public Builder config(PacedClientConfig config) {
      this.config = require(config, "config");
      return this;
    }

    /** Where pacing time comes from; default {@link NanoClock#system()}. */
    public Builder clock(NanoClock clock) {
      this.clock = require(clock, "clock");
      return this;
    }

    /** Runs the send timer and the backoffs; default {@link Scheduler#system()}. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = require(scheduler, "scheduler");
      return this;
    }

    /** The wall clock, only for HTTP-dates in Retry-After and Unix reset times; default UTC. */
    public Builder wallClock(Clock wall) {
      this.wall = require(wall, "wallClock");
      return this;
    }

    /** Randomness of the jitter and of client-side throttling. */
    public Builder random(RandomGenerator random) {
      this.random = require(random, "random");
      return this;
    }

    /** Events for metrics, e.g. {@link MicrometerClientMetrics}. */
    public Builder listener(ClientListener listener) {
      this.listener = require(listener, "listener");
      return this;
    }

    public PacedClient build() {
      return new PacedClient(this);
    }

    private static <T> T require(T value, String name) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      return value;
    }
  }
}
