package dev.sluice.javalin;

import dev.sluice.rules.RateRules;
import dev.sluice.rules.RulesFileException;
import dev.sluice.rules.RulesReloader;
import dev.sluice.time.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background reloads, started with the server: the rules file through {@link RulesReloader},
 * and, when {@code sluice.reload-interval} is set, the properties file (new limits).
 */
final class Reloads implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  private final SluicePlugin plugin;
  private final Settings settings;
  private final RateRules rules;
  private final SluiceProperties properties;
  private final WarnOnce failures;
  private final Scheduler scheduler;
  private RulesReloader rulesReloader;
  private ScheduledExecutorService poller;
  private FileTime lastSeen;

  Reloads(SluicePlugin plugin, Settings settings, RateRules rules, SluiceProperties properties,
      WarnOnce failures, Scheduler scheduler) {
    this.plugin = plugin;
    this.scheduler = scheduler;
    this.settings = settings;
    this.rules = rules;
    this.properties = properties;
    this.failures = failures;
  }

  synchronized void start() {
    Optional<Path> rulesFile = settings.rulesFile()
        .flatMap(f -> RulesSource.resolve(f, properties.file()));
    boolean reloadable = rulesFile.isPresent() || settings.rulesRemote().isPresent();
    if (rules != null && reloadable && !settings.rulesReloadInterval().isZero()) {
      RulesReloader.Builder builder = RulesReloader.builder()
          .interval(settings.rulesReloadInterval())
          .target(rules)
          .scheduler(scheduler) // the plugin's: tests drive the polls in virtual time
          // called once per bad version; the message names the file (or URL), line and field. The
          // reloader's own line goes to System.Logger, which an SLF4J application may not route
          .onError(e -> log.warn("Sluice rules not reloaded, the rules in force stay: {}",
              e.getMessage()));
      rulesFile.ifPresent(builder::file);
      settings.rulesRemote().ifPresent(builder::remote);
      rulesReloader = builder.build();
      try {
        rulesReloader.start();
      } catch (RulesFileException e) {
        // the file parsed at start-up; it changed since: keep the rules in force
        failures.warn("rules file changed into an invalid version; previous rules stay: "
            + e.getMessage(), null);
      }
    }
    Duration interval = settings.reloadInterval();
    Optional<Path> file = properties.file();
    if (!interval.isZero() && file.isPresent()) {
      lastSeen = modified(file.get());
      poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-properties-reload");
        t.setDaemon(true);
        return t;
      });
      poller.scheduleWithFixedDelay(() -> poll(file.get()), interval.toMillis(),
          interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void poll(Path file) {
    FileTime now = modified(file);
    if (now == null || now.equals(lastSeen)) {
      return;
    }
    lastSeen = now;
    try {
      plugin.reload();
    } catch (SluiceConfigException e) {
      log.warn("Reloaded Sluice properties rejected, previous limits stay: {}", e.getMessage());
    }
  }

  private static FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public synchronized void close() {
    if (rulesReloader != null) {
      rulesReloader.close();
    }
    if (poller != null) {
      poller.shutdownNow();
    }
  }
}
