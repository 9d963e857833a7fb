package dev.sluice.ratelimit;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.rules.RulesFileException;
import dev.sluice.store.StoreLoader;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import dev.sluice.time.NanoClock;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code java -jar ratelimit-service.jar --config sluice.properties}: Envoy's rate-limit service,
 * reading envoy/ratelimit's descriptor YAML unchanged. Exits with status 2 and one line naming the
 * key, file, line or field at fault when the configuration is wrong.
 */
public final class RateLimitServiceMain {

  private static final System.Logger LOG = System.getLogger(RateLimitServiceMain.class.getName());

  private RateLimitServiceMain() {}

  public static void main(String[] args) throws InterruptedException {
    RateLimitServer server;
    try {
      server = start(args, System.getenv(), systemProperties(), RateLimitServer.EPOCH_CLOCK);
    } catch (IllegalArgumentException | RulesFileException e) {
      System.err.println("ratelimit-service: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IOException e) {
      System.err.println("ratelimit-service: cannot listen: " + e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "ratelimit-service-stop"));
    server.awaitTermination();
  }

  /**
   * Reads the settings and the descriptors, opens the store when {@code sluice.redis.uri} is set,
   * and starts serving.
   */
  static RateLimitServer start(
      String[] args, Map<String, String> env, Map<String, String> system, NanoClock epochClock)
      throws RulesFileException, IOException {
    ServiceSettings settings = ServiceSettings.load(args, env, system);
    DescriptorReload descriptors = DescriptorReload.load(settings.config());
    Counters store = counters(settings.store(NanoClock.system()), epochClock);
    Counters counters = settings.admissionsFile().isPresent()
        ? AdmissionsFile.writingEverySecond(store, settings.admissionsFile().get(), epochClock)
        : store;
    QuotaDivision division = new QuotaDivision(
        settings.quota(),
        settings.redisUri().isPresent()
            ? RedisDemands.open(settings.redisUri().get(), settings.redisTimeout())
            : new LocalDemands(epochClock));
    RateLimitServer server;
    try {
      server = RateLimitServer.start(settings.port(), descriptors, counters, division, epochClock);
    } catch (IOException | RuntimeException e) {
      counters.close();
      division.close();
      throw e;
    }
    if (!settings.reloadInterval().isZero()) {
      server.reloadEvery(descriptors, settings.reloadInterval());
    }
    LOG.log(
        System.Logger.Level.INFO,
        "ratelimit-service listening on port {0}: {1} domain(s) from {2} (read again {3}), "
            + "counting {4}, RLQS demands {5}",
        Integer.toString(server.port()),
        descriptors.get().domains().size(),
        settings.config(),
        settings.reloadInterval().isZero()
            ? "never"
            : "every " + settings.reloadInterval().toMillis() + " ms",
        counters.describe(),
        division.describe());
    return server;
  }

  static Counters counters(Optional<StoreSettings> store, NanoClock epochClock) {
    if (store.isEmpty()) {
      return new LocalCounters(epochClock);
    }
    Stores stores = StoreLoader.open(store.get())
        .orElseThrow(
            () -> new SluiceConfigException(
                "sluice.redis.uri",
                store.get().uri().toString(),
                "no store on the classpath supports this URI (limiter-redis takes redis:// and rediss://)"));
    return new StoreCounters(stores);
  }

  private static Map<String, String> systemProperties() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      out.put(name, System.getProperty(name));
    }
    return out;
  }
}
