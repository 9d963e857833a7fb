package dev.sluice.javalin;

import dev.sluice.rate.RateDecision;
import dev.sluice.store.PermitStore;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.store.StoreProvider;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared store for tests, found by ServiceLoader for {@code memory://NAME}: the permits of one
 * NAME are shared by every plugin in the JVM, as Redis shares them between nodes.
 */
public final class MemoryStoreProvider implements StoreProvider {

  static final Map<String, Map<String, AtomicInteger>> LEASES = new ConcurrentHashMap<>();

  /** The lease time of the latest lease asked for, per cluster and limiter ("cluster/limiter"). */
  static final Map<String, Duration> LEASE_TIMES = new ConcurrentHashMap<>();

  static final String STORE_THREAD_NAME = "memory-store-io";
  static final Map<String, Rates> RATES = new ConcurrentHashMap<>();
  private static final Executor STORE_THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, STORE_THREAD_NAME);
    t.setDaemon(true);
    return t;
  });

  static Rates rates(String cluster) {
    return RATES.computeIfAbsent(cluster, c -> new Rates());
  }

  static AtomicInteger leases(String cluster, String limiter) {
    return LEASES
        .computeIfAbsent(cluster, c -> new ConcurrentHashMap<>())
        .computeIfAbsent(limiter, l -> new AtomicInteger());
  }

  @Override
  public boolean supports(URI uri) {
    return "memory".equals(uri.getScheme());
  }

  @Override
  public Stores open(StoreSettings settings) {
    String cluster = settings.uri().getHost();
    PermitStore permits = new PermitStore() {
      @Override
      public CompletionStage<Optional<PermitLease>> tryAcquire(
          String limiter, int maxPermits, Duration leaseTime) {
        AtomicInteger held = leases(cluster, limiter);
        LEASE_TIMES.put(cluster + "/" + limiter, leaseTime);
        // answer on another thread, as a real store's I/O thread would
        return CompletableFuture.supplyAsync(() -> {
          int now = held.incrementAndGet();
          if (now > maxPermits) {
            held.decrementAndGet();
            return Optional.empty();
          }
          AtomicBoolean released = new AtomicBoolean();
          return Optional.of(() -> {
            if (released.compareAndSet(false, true)) {
              held.decrementAndGet();
            }
            return CompletableFuture.completedFuture(null);
          });
        });
      }

      @Override
      public CompletionStage<Integer> held(String limiter) {
        return CompletableFuture.completedFuture(leases(cluster, limiter).get());
      }

      @Override
      public void close() {}
    };
    Rates shared = rates(cluster);
    RateStore rates = new RateStore() {
      @Override
      public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
        return shared.answer(requests);
      }

      @Override
      public CompletionStage<Void> refund(List<RateRequest> requests) {
        requests.forEach(r -> shared.used(r).addAndGet(-r.cost()));
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public String describe() {
        return "memory://" + cluster;
      }

      @Override
      public void close() {}
    };
    return new Stores() {
      @Override
      public RateStore rates() {
        return rates;
      }

      @Override
      public PermitStore permits() {
        return permits;
      }

      @Override
      public void close() {}
    };
  }

  /**
   * The rate state of one cluster: a plain count per rule and key (no refill: tests stay inside one
   * window), answered later on the store's own thread, as Redis answers on Lettuce's I/O thread.
   * While {@link #hold()} is on, answers wait until {@link #release()}.
   */
  static final class Rates {
    private final Map<String, AtomicLong> used = new ConcurrentHashMap<>();
    private final List<Runnable> held = new ArrayList<>();
    private boolean holding;

    AtomicLong used(RateRequest r) {
      return used.computeIfAbsent(r.ruleId() + '|' + r.key(), k -> new AtomicLong());
    }

    CompletionStage<List<RateDecision>> answer(List<RateRequest> requests) {
      CompletableFuture<List<RateDecision>> answer = new CompletableFuture<>();
      Runnable decide =
          () -> answer.complete(requests.stream().map(this::decide).toList());
      synchronized (this) {
        if (holding) {
          held.add(decide);
          return answer;
        }
      }
      STORE_THREAD.execute(decide);
      return answer;
    }

    private RateDecision decide(RateRequest r) {
      long limit = r.limit().limit();
      long now = used(r).addAndGet(r.cost());
      if (now > limit) {
        used(r).addAndGet(-r.cost());
        return RateDecision.rejected(
            limit, TimeUnit.SECONDS.toNanos(30), r.limit().period().toNanos());
      }
      return RateDecision.allowed(limit, limit - now, r.limit().period().toNanos());
    }

    synchronized void hold() {
      holding = true;
    }

    synchronized int waiting() {
      return held.size();
    }

    void release() {
      List<Runnable> answers;
      synchronized (this) {
        holding = false;
        answers = new ArrayList<>(held);
        held.clear();
      }
      answers.forEach(STORE_THREAD::execute);
    }
  }
}
