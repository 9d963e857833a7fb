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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared store for tests, found by ServiceLoader for {@code memory://NAME}: the permits of one
 * NAME are shared by every plugin in the JVM, as Redis shares them between nodes.
 */
public final class MemoryStoreProvider implements StoreProvider {

  static final Map<String, Map<String, AtomicInteger>> LEASES = new ConcurrentHashMap<>();

  static AtomicInteger leases(String cluster, String limiter) {
    return LEASES.computeIfAbsent(cluster, c -> new ConcurrentHashMap<>())
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
      public CompletionStage<Optional<PermitLease>> tryAcquire(String limiter, int maxPermits,
          Duration leaseTime) {
        AtomicInteger held = leases(cluster, limiter);
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
      public void close() {}
    };
    RateStore rates = new RateStore() {
      @Override
      public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
        return CompletableFuture.completedFuture(requests.stream()
            .map(r -> RateDecision.allowed(r.limit().limit(), r.limit().limit() - 1, 0)).toList());
      }

      @Override
      public CompletionStage<Void> refund(List<RateRequest> requests) {
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
}
