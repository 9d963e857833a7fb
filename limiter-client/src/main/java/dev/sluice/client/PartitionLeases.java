package dev.sluice.client;

import dev.sluice.redis.RedisConnection;
import dev.sluice.redis.RedisScript;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * This process's share of a service's quota, as leased partitions (the cloud "rate limiting
 * pattern"): the quota is {@code P} partitions of {@code R} permits per second; the process leases
 * as many as it {@linkplain #want wants} (free partitions in random order, so processes starting
 * together do not all race for partition 0), renews them every third of the lease time while it
 * wants them, and lets them lapse when it is idle. Its pace is {@code held x R} (plus an optional
 * reserved share, less a small headroom for jitter), pushed to a {@link PacedClient} as its ceiling.
 *
 * <p>Leases live in Redis and are timed by the Redis clock in one Lua script per round, so no two
 * processes hold a partition at once whatever their own clocks say, and a process that dies loses
 * its partitions one lease time after its last renewal. The pace is lowered before a partition is
 * given back, and a process that cannot reach Redis for two renewal periods drops to its reserved
 * share, since by then its leases may have expired and been taken.
 *
 * <p>Rounds run one at a time on the injected {@link Scheduler}; no thread is held between rounds.
 */
public final class PartitionLeases implements AutoCloseable {

  private static final RedisScript SCRIPT =
      RedisScript.load(PartitionLeases.class, "partition_lease");

  private final PartitionLeasesConfig config;
  private final RedisConnection redis;
  private final Scheduler scheduler;
  private final NanoClock clock;
  private final Random random;
  private final LongConsumer pace;
  private final String owner;
  private final String[] keys;
  private final long renewEveryNanos;

  private final Object lock = new Object();
  private int wanted;
  private int held;
  private boolean roundRunning;
  private boolean roundAgain;
  private boolean closed;
  private long lastConfirmedAt;
  private boolean everConfirmed;
  private Scheduler.Cancellable next;
  private long appliedPace = -1;

  private PartitionLeases(Builder b) {
    this.config = b.config;
    this.scheduler = b.scheduler;
    this.clock = b.clock;
    this.random = b.random;
    this.owner = b.owner;
    this.pace = b.pace;
    this.keys = new String[] {
      "sluice:partitions:{" + config.service() + "}:leases",
      "sluice:partitions:{" + config.service() + "}:owners"
    };
    this.renewEveryNanos = config.leaseTime().toNanos() / 3;
    // a call may take a renewal period: a round that takes longer is a failed round anyway
    this.redis = RedisConnection.open(b.redis, Duration.ofNanos(renewEveryNanos));
    applyPace(0);
  }

  /** Leases in the Redis at {@code redis}; the pace goes to {@code client} as its ceiling. */
  public static Builder builder(URI redis, PartitionLeasesConfig config) {
    if (config == null) {
      throw new IllegalArgumentException("config must not be null");
    }
    return new Builder(redis, config);
  }

  /**
   * How many partitions this process wants now (capped at {@code maxPartitions}); 0 is idle: no more
   * renewals, the pace drops to the reserved share at once and the partitions lapse.
   */
  public void want(int partitions) {
    if (partitions < 0) {
      throw new IllegalArgumentException("wanted partitions must be >= 0 but was " + partitions);
    }
    int capped = Math.min(partitions, config.maxPartitions());
    boolean start;
    synchronized (lock) {
      if (closed || capped == wanted) {
        return;
      }
      wanted = capped;
      if (capped == 0) {
        held = 0;
        applyPace(0);
        if (next != null) {
          next.cancel();
          next = null;
        }
        return;
      }
      if (capped < held) {
        held = capped; // slow down before giving partitions back, never after
        applyPace(held);
      }
      start = !roundRunning;
      roundAgain = roundRunning;
      roundRunning = true;
    }
    if (start) {
      round();
    }
  }

  /** The partitions held as of the last round. */
  public int held() {
    synchronized (lock) {
      return held;
    }
  }

  /** The pace in force: held x permits per partition, less the headroom, + the reserved share. */
  public long permitsPerSecond() {
    synchronized (lock) {
      return config.paceOf(held);
    }
  }

  /** This process's owner id in Redis. */
  public String owner() {
    return owner;
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void round() {
    int want;
    synchronized (lock) {
      want = wanted;
      if (closed) {
        roundRunning = false;
        return;
      }
    }
    long sentAt = clock.nanoTime();
    List<String> order = new ArrayList<>(config.partitions());
    for (int p = 0; p < config.partitions(); p++) {
      order.add(Integer.toString(p));
    }
    Collections.shuffle(order, random);
    String[] args = new String[3 + order.size()];
    args[0] = owner;
    args[1] = Long.toString(config.leaseTime().toNanos() / 1_000);
    args[2] = Integer.toString(want);
    for (int i = 0; i < order.size(); i++) {
      args[3 + i] = order.get(i);
    }
    CompletableFuture<List<Object>> sent;
    try {
      sent = redis.run(SCRIPT, keys, args);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.orTimeout(renewEveryNanos, TimeUnit.NANOSECONDS).whenComplete((partitions, error) -> {
      boolean again;
      synchronized (lock) {
        if (closed) {
          roundRunning = false;
          return;
        }
        if (error == null) {
          lastConfirmedAt = sentAt;
          everConfirmed = true;
          held = wanted == 0 ? 0 : Math.min(partitions.size(), wanted);
        } else if (!everConfirmed || clock.nanoTime() - lastConfirmedAt > 2 * renewEveryNanos) {
          held = 0; // our leases may have run out and been taken: do not use them blind
        }
        applyPace(held);
        again = roundAgain;
        roundAgain = false;
        if (!again) {
          roundRunning = false;
          if (wanted > 0) {
            if (next != null) {
              next.cancel();
            }
            next = scheduler.schedule(this::scheduledRound, renewEveryNanos);
          }
        }
      }
      if (again) {
        round();
      }
    });
  }

  private void scheduledRound() {
    synchronized (lock) {
      next = null;
      if (closed || wanted == 0 || roundRunning) {
        return;
      }
      roundRunning = true;
    }
    round();
  }

  /** Under the lock. */
  private void applyPace(int partitions) {
    long permits = config.paceOf(partitions);
    if (permits != appliedPace) {
      appliedPace = permits;
      pace.accept(permits);
    }
  }

  /** Gives every partition back at once, and closes the connection. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      held = 0;
      applyPace(0);
      if (next != null) {
        next.cancel();
      }
    }
    String[] args = {owner, "1", "0"};
    try {
      redis
          .run(SCRIPT, keys, allPartitions(args))
          .orTimeout(2, TimeUnit.SECONDS)
          .handle((r, e) -> null)
          .join();
    } finally {
      redis.close();
    }
  }

  /** A crash, for tests: no more renewals, nothing given back, the connection dropped. */
  void abandon() {
    synchronized (lock) {
      closed = true;
      if (next != null) {
        next.cancel();
      }
    }
    redis.close();
  }

  private String[] allPartitions(String[] head) {
    String[] args = new String[head.length + config.partitions()];
    System.arraycopy(head, 0, args, 0, head.length);
    for (int p = 0; p < config.partitions(); p++) {
      args[head.length + p] = Integer.toString(p);
    }
    return args;
  }

  /** Configures {@link PartitionLeases}. */
  public static final class Builder {
    private final URI redis;
    private final PartitionLeasesConfig config;
    private Scheduler scheduler = Scheduler.system();
    private NanoClock clock = NanoClock.system();
    private Random random = new Random();
    private String owner = UUID.randomUUID().toString();
    private LongConsumer pace = permits -> {};

    private Builder(URI redis, PartitionLeasesConfig config) {
      this.redis = redis;
      this.config = config;
    }

    /** The client whose ceiling follows the leased pace (0 holds it until a partition is held). */
    public Builder pacing(PacedClient client) {
      if (client == null) {
        throw new IllegalArgumentException("client must not be null");
      }
      LongConsumer before = pace;
      this.pace = permits -> {
        before.accept(permits);
        client.changeCeiling(permits, Duration.ofSeconds(1));
      };
      return this;
    }

    /** Called with the permits per second in force whenever they change. */
    public Builder onPace(LongConsumer listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      LongConsumer before = pace;
      this.pace = permits -> {
        before.accept(permits);
        listener.accept(permits);
      };
      return this;
    }

    public Builder scheduler(Scheduler scheduler) {
      if (scheduler == null) {
        throw new IllegalArgumentException("scheduler must not be null");
      }
      this.scheduler = scheduler;
      return this;
    }

    public Builder clock(NanoClock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      this.clock = clock;
      return this;
    }

    /** The order partitions are tried in. */
    public Builder random(Random random) {
      if (random == null) {
        throw new IllegalArgumentException("random must not be null");
      }
      this.random = random;
      return this;
    }

    /** This process's id in Redis; default a random UUID. */
    public Builder owner(String owner) {
      if (owner == null || owner.isBlank()) {
        throw new IllegalArgumentException("owner must not be blank but was '" + owner + "'");
      }
      this.owner = owner;
      return this;
    }

    /** Connects to Redis; no partition is leased until {@link PartitionLeases#want} asks. */
    public PartitionLeases build() {
      return new PartitionLeases(this);
    }
  }
}
