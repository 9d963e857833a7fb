package dev.sluice.rules;

import dev.sluice.time.Scheduler;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Keeps a {@link RateRules} in step with its rules file, and with a remote copy that wins while it
 * can be reached (the Diana design's local fallback).
 *
 * <ul>
 *   <li>The local file is polled on an interval; it is read again only when its modification time or
 *       size changed, and applied only when its content hash changed.
 *   <li>The remote URL (optional) is fetched with GET on its own interval. While it answers 200 with
 *       valid rules, those rules are in force; when it cannot be reached (error, timeout, other
 *       status), the local rules are put back in force until it answers again.
 *   <li>An invalid version (local or remote) changes nothing: the rules in force stay, and the error,
 *       naming file, line and field, is logged and reported once per bad version.
 * </ul>
 *
 * Replacing rules keeps the counts of rules whose identity and limits did not change ({@link
 * RateRules#replace}). Polls run on the injected {@link Scheduler}, so tests drive them in virtual
 * time.
 */
public final class RulesReloader implements AutoCloseable {

  private final RateRules target;
  private final Path file;
  private final URI remote;
  private final long intervalNanos;
  private final long remoteIntervalNanos;
  private final Duration remoteTimeout;
  private final Scheduler scheduler;
  private final HttpClient http;
  private final Consumer<RulesFileException> onError;
  private final System.Logger log;
  private final RuleSources sources = new RuleSources();

  private Object fileStamp; // modification time and size of the file last read
  private volatile boolean closed;
  private Scheduler.Cancellable fileTask;
  private Scheduler.Cancellable remoteTask;

  private RulesReloader(Builder builder) {
    this.target = builder.target;
    this.file = builder.file;
    this.remote = builder.remote;
    this.intervalNanos = builder.interval.toNanos();
    this.remoteIntervalNanos = builder.remoteInterval.toNanos();
    this.remoteTimeout = builder.remoteTimeout;
    this.scheduler = builder.scheduler;
    this.http = remote == null
        ? null
        : builder.http != null
            ? builder.http
            : HttpClient.newBuilder().connectTimeout(remoteTimeout).build();
    this.onError = builder.onError;
    this.log = builder.log;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Loads the local file (its errors stop start-up), makes one bounded attempt at the remote URL,
   * then starts polling both.
   *
   * @throws RulesFileException when the local file is missing or invalid
   */
  public void start() throws RulesFileException {
    if (file != null) {
      Object stamp = stamp();
      String text = RulesFile.read(file);
      RuleSet rules = RulesFile.parse(file.toString(), text);
      synchronized (this) {
        fileStamp = stamp;
        applyOrThrow(sources.accept(sources.local, rules, RuleSources.hash(text)), file.toString());
      }
      synchronized (this) {
        if (!closed) {
          fileTask = scheduler.every(intervalNanos, this::pollFile);
        }
      }
    }
    if (remote != null) {
      try {
        pollRemote().toCompletableFuture().get(remoteTimeout.toNanos() * 2, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        // reported by pollRemote; the local rules stay in force
      }
      synchronized (this) {
        if (!closed) {
          // the fetch itself is asynchronous: the scheduler's thread never waits on the network
          remoteTask = scheduler.every(remoteIntervalNanos, this::pollRemote);
        }
      }
    }
  }

  /** Polls the file and the remote URL now; the stage completes when both answers are applied. */
  public CompletionStage<Void> poll() {
    if (file != null) {
      pollFile();
    }
    return remote != null ? pollRemote() : CompletableFuture.completedFuture(null);
  }

  /** Whether the rules in force came from the remote URL. */
  public synchronized boolean remoteInForce() {
    return sources.remoteInForce();
  }

  /** Stops polling; the rules in force stay. */
  @Override
  public synchronized void close() {
    closed = true;
    if (fileTask != null) {
      fileTask.cancel();
    }
    if (remoteTask != null) {
      remoteTask.cancel();
    }
  }

  private void pollFile() {
    Object stamp;
    String text;
    try {
      stamp = stamp();
      synchronized (this) {
        if (stamp.equals(fileStamp)) {
          return;
        }
      }
      text = RulesFile.read(file);
    } catch (RulesFileException e) {
      reportOnce(e, "missing:" + e.problem());
      return;
    }
    String hash = RuleSources.hash(text);
    synchronized (this) {
      fileStamp = stamp;
      if (!sources.local.isNew(hash)) {
        return;
      }
      try {
        RuleSet rules = RulesFile.parse(file.toString(), text);
        applyOrThrow(sources.accept(sources.local, rules, hash), file.toString());
      } catch (RulesFileException e) {
        sources.local.reject(hash);
        reportOnce(e, hash);
      }
    }
  }

  private CompletionStage<Void> pollRemote() {
    HttpRequest request = HttpRequest.newBuilder(remote)
        .timeout(remoteTimeout)
        .header("Accept", "application/yaml, text/yaml, text/plain, */*")
        .GET()
        .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .handle((response, failure) -> {
          if (failure != null || response.statusCode() != 200) {
            remoteUnreachable(
                failure != null ? failure.toString() : "status " + response.statusCode());
          } else {
            remoteAnswered(response.body());
          }
          return null;
        });
  }

  private synchronized void remoteAnswered(String text) {
    if (closed) {
      return;
    }
    if (Boolean.FALSE.equals(sources.reachable(true))) {
      log.log(Level.INFO, "remote rules " + remote + " reachable again; they win over the file");
    }
    String hash = RuleSources.hash(text);
    try {
      if (sources.remote.isNew(hash)) {
        RuleSet rules = RulesFile.parse(remote.toString(), text);
        applyOrThrow(sources.accept(sources.remote, rules, hash), remote.toString());
      } else {
        apply(sources.inForce());
      }
    } catch (RulesFileException e) {
      sources.remote.reject(hash);
      reportOnce(e, hash);
    }
  }

  private synchronized void remoteUnreachable(String why) {
    if (closed) {
      return;
    }
    if (!Boolean.FALSE.equals(sources.reachable(false))) { // log the change, not every poll
      log.log(
          Level.WARNING,
          "remote rules " + remote + " unreachable (" + why + "); the local rules apply");
    }
    apply(sources.inForce());
  }

  /** Puts rules in force; a rule set the engine refuses counts as an invalid version. */
  private void applyOrThrow(RuleSet rules, String source) throws RulesFileException {
    try {
      apply(rules);
    } catch (IllegalArgumentException e) {
      sources.undoLast();
      throw new RulesFileException(source, 0, "rules", e.getMessage());
    }
  }

  // identity on purpose: only the very set already applied is skipped, an equal new one replaces it
  @SuppressWarnings("ReferenceEquality")
  private void apply(RuleSet rules) {
    if (rules != null && rules != target.rules()) {
      target.replace(rules);
    }
  }

  private synchronized void reportOnce(RulesFileException e, String version) {
    if (sources.firstReport(version)) {
      if (onError == null) {
        log.log(Level.ERROR, "rules not reloaded, the rules in force stay: " + e.getMessage());
        return;
      }
      // with a handler the handler reports it: one report per bad version, in one format
      try {
        onError.accept(e);
      } catch (RuntimeException ignored) {
        // a failing error callback must not stop reloading
      }
    }
  }

  private Object stamp() throws RulesFileException {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return java.util.List.of(attributes.lastModifiedTime(), attributes.size());
    } catch (IOException e) {
      throw new RulesFileException(file.toString(), 0, "(file)", "cannot be read: " + e);
    }
  }

  /** Configures a {@link RulesReloader}. */
  public static final class Builder {
    private RateRules target;
    private Path file;
    private URI remote;
    private Duration interval = Duration.ofSeconds(5);
    private Duration remoteInterval;
    private Duration remoteTimeout = Duration.ofSeconds(2);
    private Scheduler scheduler = Scheduler.system();
    private HttpClient http;
    private Consumer<RulesFileException> onError;
    private System.Logger log = System.getLogger(RulesReloader.class.getName());

    private Builder() {}

    /** The engine whose rules are kept up to date (required). */
    public Builder target(RateRules target) {
      this.target = Objects.requireNonNull(target, "target");
      return this;
    }

    /** The local rules file. */
    public Builder file(Path file) {
      this.file = file;
      return this;
    }

    /** A URL serving a rules file; while it answers with valid rules they win over the file. */
    public Builder remote(URI remote) {
      if (remote != null
          && !"http".equals(remote.getScheme())
          && !"https".equals(remote.getScheme())) {
        throw new IllegalArgumentException("remote must be an http or https URL but was " + remote);
      }
      this.remote = remote;
      return this;
    }

    /** How often the file is checked (default 5s); also the remote's unless set apart. */
    public Builder interval(Duration interval) {
      this.interval = positive(interval, "interval");
      return this;
    }

    /** How often the remote URL is fetched; defaults to {@link #interval}. */
    public Builder remoteInterval(Duration remoteInterval) {
      this.remoteInterval = positive(remoteInterval, "remoteInterval");
      return this;
    }

    /** The bound on one remote fetch (default 2s). */
    public Builder remoteTimeout(Duration remoteTimeout) {
      this.remoteTimeout = positive(remoteTimeout, "remoteTimeout");
      return this;
    }

    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** The HTTP client of the remote fetches; a new one by default. */
    public Builder httpClient(HttpClient http) {
      this.http = http;
      return this;
    }

    /** Called once per invalid version, besides the log (e.g. for a metric). */
    public Builder onError(Consumer<RulesFileException> onError) {
      this.onError = onError;
      return this;
    }

    Builder logger(System.Logger log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /**
     * Builds the reloader; call {@link RulesReloader#start()} to load and begin polling.
     *
     * @throws IllegalArgumentException without a target, or without a file and a remote URL
     */
    public RulesReloader build() {
      if (target == null) {
        throw new IllegalArgumentException("target is required");
      }
      if (file == null && remote == null) {
        throw new IllegalArgumentException("a file or a remote URL is required");
      }
      if (remoteInterval == null) {
        remoteInterval = interval;
      }
      return new RulesReloader(this);
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + value);
      }
      return value;
    }
  }
}
