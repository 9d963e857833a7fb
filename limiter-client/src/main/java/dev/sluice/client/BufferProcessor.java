package dev.sluice.client;

import dev.sluice.redis.RedisConnection;
import dev.sluice.redis.RedisScript;
import dev.sluice.time.Scheduler;
import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * Drains a {@link DurableBuffer} into a throttled service: one member of the buffer's consumer
 * group, sending through a {@link PacedClient} (whose pace {@link PartitionLeases} may set).
 *
 * <ul>
 *   <li>Reads only as many records as it has room for ({@code maxOutstanding}), so the stream, not
 *       the heap, holds the backlog.
 *   <li>Acknowledges (XACK and XDEL, in one script) a record only once the service answered 2xx. A 4xx other than
 *       429 is the service refusing the record itself: acknowledged and counted as refused, since
 *       sending it again cannot help. A 429/503 after the client's own retries, a 5xx or an I/O
 *       error leave it pending.
 *   <li>Every {@code claimIdle / 2} it claims (XAUTOCLAIM) records pending longer than {@code
 *       claimIdle} with any member, itself included: those of a processor that crashed, and its own
 *       that failed. At least once: a claimed record may have reached the service already, and
 *       {@link #claimed()} counts them. {@code claimIdle} must be longer than a record waits here
 *       ({@code maxOutstanding / pace}), or a live processor's records are claimed too (still no
 *       loss, more duplicates).
 *   <li>Wants {@code partitions} leases while it has work and none when a read finds nothing.
 * </ul>
 *
 * <p>One chain of asynchronous Redis calls, re-armed on the scheduler every {@code pollEvery}; no
 * thread is held while waiting.
 */
public final class BufferProcessor implements AutoCloseable {

  private static final RedisScript ACK_AND_DELETE = RedisScript.of(
      "ack_and_delete",
      "redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) return redis.call('XDEL', KEYS[1], ARGV[2])");

  private final String key;
  private final Consumer<String> consumer;
  private final RedisConnection redis;
  private final PacedClient client;
  private final BiFunction<String, String, HttpRequest> request;
  private final PartitionLeases leases;
  private final int partitions;
  private final int maxOutstanding;
  private final long pollNanos;
  private final Duration claimIdle;
  private final long claimEveryNanos;
  private final Scheduler scheduler;

  private final Set<String> outstanding = ConcurrentHashMap.newKeySet();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean stopped;
  private volatile boolean reading = true;
  private long lastClaim;
  private long ticks;

  private BufferProcessor(Builder b) {
    this.key = DurableBuffer.streamKey(b.buffer);
    this.consumer = Consumer.from(DurableBuffer.GROUP, b.consumer);
    this.client = b.client;
    this.request = b.request;
    this.leases = b.leases;
    this.partitions = b.partitions;
    this.maxOutstanding = b.maxOutstanding;
    this.pollNanos = b.pollEvery.toNanos();
    this.claimIdle = b.claimIdle;
    this.claimEveryNanos = b.claimIdle.toNanos() / 2;
    this.scheduler = b.scheduler;
    this.redis = RedisConnection.open(b.redis, DurableBuffer.CALL_TIMEOUT);
    DurableBuffer.createGroup(redis, key);
  }

  /**
   * A processor of the buffer {@code buffer} in the Redis at {@code redis}, sending each record
   * through {@code client} as the request {@code request} builds from the record's stream id and
   * text (send the id along so the service can drop a redelivered record).
   */
  public static Builder builder(
      URI redis,
      String buffer,
      PacedClient client,
      BiFunction<String, String, HttpRequest> request) {
    return new Builder(redis, buffer, client, request);
  }

  /** Starts reading. */
  public BufferProcessor start() {
    scheduler.schedule(this::tick, 0);
    return this;
  }

  /** Records the service accepted and that were acknowledged. */
  public long delivered() {
    return delivered.get();
  }

  /** Records the service refused with a 4xx (not 429): acknowledged, not sent again. */
  public long refused() {
    return refused.get();
  }

  /** Records this processor claimed from the pending list (redeliveries: possible duplicates). */
  public long claimed() {
    return claimed.get();
  }

  /** Sends that left the record pending (throttled past the retries, 5xx, I/O error). */
  public long failed() {
    return failed.get();
  }

  /** Records read and not yet answered. */
  public int outstanding() {
    return outstanding.size();
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void tick() {
    if (stopped || !reading) {
      return;
    }
    long now = System.nanoTime();
    boolean claimNow = ticks++ == 0 || now - lastClaim >= claimEveryNanos;
    CompletableFuture<Integer> claimedCount =
        claimNow ? claim() : CompletableFuture.completedFuture(0);
    claimedCount
        .thenCompose(n -> read().thenApply(m -> n + m))
        .orTimeout(5, TimeUnit.SECONDS)
        .whenComplete((got, error) -> {
          if (claimNow) {
            lastClaim = now;
          }
          if (leases != null) {
            boolean work = (got != null && got > 0) || !outstanding.isEmpty();
            leases.want(work ? partitions : 0);
          }
          if (!stopped && reading) {
            scheduler.schedule(this::tick, pollNanos);
          }
        });
  }

  private int room() {
    return Math.max(0, Math.min(maxOutstanding - outstanding.size(), maxOutstanding));
  }

  private CompletableFuture<Integer> claim() {
    int room = room();
    if (room == 0) {
      return CompletableFuture.completedFuture(0);
    }
    return redis
        .call(c -> c.xautoclaim(
            key, XAutoClaimArgs.Builder.xautoclaim(consumer, claimIdle, "0-0").count(room)))
        .thenApply((ClaimedMessages<String, String> messages) -> {
          int n = 0;
          for (StreamMessage<String, String> m : messages.getMessages()) {
            // our own record still waiting in the client is not a lost one
            if (m != null && m.getBody() != null && !outstanding.contains(m.getId())) {
              claimed.incrementAndGet();
              send(m);
              n++;
            }
          }
          return n;
        });
  }

  @SuppressWarnings("unchecked") // Lettuce's xreadgroup takes StreamOffset varargs: one offset here
  private CompletableFuture<Integer> read() {
    int room = room();
    if (room == 0 || stopped || !reading) {
      return CompletableFuture.completedFuture(0);
    }
    return redis
        .call(c -> c.xreadgroup(
            consumer, XReadArgs.Builder.count(room), XReadArgs.StreamOffset.lastConsumed(key)))
        .thenApply((List<StreamMessage<String, String>> messages) -> {
          for (StreamMessage<String, String> m : messages) {
            send(m);
          }
          return messages.size();
        });
  }

  // a failed acknowledge leaves the entry pending, to be claimed again; the callbacks handle the
  // send's failure
  @SuppressWarnings("FutureReturnValueIgnored")
  private void send(StreamMessage<String, String> message) {
    String id = message.getId();
    String record = message.getBody().get(DurableBuffer.FIELD);
    if (record == null) {
      acknowledge(id); // not ours: an entry without a record field can never be sent
      return;
    }
    outstanding.add(id);
    CompletableFuture<HttpResponse<Void>> answer;
    try {
      answer = client.submit(request.apply(id, record), HttpResponse.BodyHandlers.discarding());
    } catch (RuntimeException e) {
      answer =
          CompletableFuture.failedFuture(e); // queue full or closed: stays pending, claimed later
    }
    answer.whenComplete((response, error) -> {
      int status = error == null ? response.statusCode() : -1;
      if (status >= 200 && status < 300) {
        acknowledge(id).whenComplete((r, e) -> {
          if (e == null) {
            delivered.incrementAndGet();
          }
          outstanding.remove(id);
        });
      } else if (status >= 400 && status < 500 && status != 429) {
        acknowledge(id).whenComplete((r, e) -> {
          refused.incrementAndGet();
          outstanding.remove(id);
        });
      } else {
        failed.incrementAndGet();
        outstanding.remove(id);
      }
    });
  }

  private CompletableFuture<Long> acknowledge(String id) {
    if (stopped) {
      return CompletableFuture.failedFuture(new IllegalStateException("processor stopped"));
    }
    try {
      // one script, so a crash between the two cannot leave an acknowledged entry in the stream
      return redis.runForLong(ACK_AND_DELETE, new String[] {key}, DurableBuffer.GROUP, id);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Stops reading, waits up to {@code wait} for the records already sent to be answered and
   * acknowledged, then closes its connection. Records still unanswered stay pending for another
   * processor.
   */
  public void close(Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    reading = false;
    while (!outstanding.isEmpty() && System.nanoTime() - deadline < 0) {
      try {
        Thread.sleep(10); // close is rare and may block: polling the set is simpler than a latch
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    stopped = true;
    redis.close();
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /** A crash, for tests: nothing more is read or acknowledged, the connection drops at once. */
  void crash() {
    stopped = true;
    redis.close();
  }

  /** Configures a {@link BufferProcessor}; setters validate at once. */
  public static final class Builder {
    private final URI redis;
    private final String buffer;
    private final PacedClient client;
    private final BiFunction<String, String, HttpRequest> request;
    private String consumer = "processor-" + java.util.UUID.randomUUID();
    private PartitionLeases leases;
    private int partitions;
    private int maxOutstanding = 1_000;
    private Duration pollEvery = Duration.ofMillis(20);
    private Duration claimIdle = Duration.ofSeconds(30);
    private Scheduler scheduler = Scheduler.system();

    private Builder(
        URI redis,
        String buffer,
        PacedClient client,
        BiFunction<String, String, HttpRequest> request) {
      if (redis == null || buffer == null || client == null || request == null) {
        throw new IllegalArgumentException("redis, buffer, client and request must not be null");
      }
      this.redis = redis;
      this.buffer = buffer;
      this.client = client;
      this.request = request;
    }

    /** This processor's name in the consumer group; default a random one. */
    public Builder consumer(String consumer) {
      if (consumer == null || consumer.isBlank()) {
        throw new IllegalArgumentException("consumer must not be blank but was '" + consumer + "'");
      }
      this.consumer = consumer;
      return this;
    }

    /** Wants {@code partitions} of {@code leases} while there is work, none when idle. */
    public Builder leases(PartitionLeases leases, int partitions) {
      if (leases == null || partitions < 1) {
        throw new IllegalArgumentException(
            "leases must not be null and partitions must be >= 1 but was " + partitions);
      }
      this.leases = leases;
      this.partitions = partitions;
      return this;
    }

    /** Records read and not yet answered, at most; keep it within the client's maxQueue. */
    public Builder maxOutstanding(int maxOutstanding) {
      if (maxOutstanding < 1) {
        throw new IllegalArgumentException("maxOutstanding must be >= 1 but was " + maxOutstanding);
      }
      this.maxOutstanding = maxOutstanding;
      return this;
    }

    /** How often the stream is read; default 20 ms. */
    public Builder pollEvery(Duration pollEvery) {
      if (pollEvery == null || pollEvery.toMillis() < 1) {
        throw new IllegalArgumentException("pollEvery must be >= 1ms but was " + pollEvery);
      }
      this.pollEvery = pollEvery;
      return this;
    }

    /** How long a record stays pending before any processor may claim it; default 30 s. */
    public Builder claimIdle(Duration claimIdle) {
      if (claimIdle == null || claimIdle.toMillis() < 10) {
        throw new IllegalArgumentException("claimIdle must be >= 10ms but was " + claimIdle);
      }
      this.claimIdle = claimIdle;
      return this;
    }

    public Builder scheduler(Scheduler scheduler) {
      if (scheduler == null) {
        throw new IllegalArgumentException("scheduler must not be null");
      }
      this.scheduler = scheduler;
      return this;
    }

    /** Connects to Redis and joins the group; call {@link BufferProcessor#start()} to read. */
    public BufferProcessor build() {
      return new BufferProcessor(this);
    }
  }
}
