package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.RulesSource;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.UnknownKeys;
import dev.sluice.http.Answers;
import dev.sluice.http.History;
import dev.sluice.http.QueueWaits;
import dev.sluice.http.Rejection;
import dev.sluice.http.RuleCounters;
import dev.sluice.http.RuleSnapshot;
import dev.sluice.http.StatusReport;
import dev.sluice.request.Scope;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.StoreLoader;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import io.javalin.config.JavalinState;
import io.javalin.http.Handler;
import io.javalin.plugin.Plugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice as a Javalin 7 plugin: named concurrency limiters with a bounded queue for heavy endpoints,
 * rate rules on every request, and the HTTP answers of the contract (429 queue full, 504 queue
 * timeout, 429 rate limited, 503 shutting down; RFC 9457 bodies).
 *
 * <pre>{@code
 * SluicePlugin sluice = new SluicePlugin(cfg -> cfg
 *     .properties(SluiceProperties.load(Path.of("sluice.properties")))
 *     .limiter("transcode", l -> l.path("/api/transcode").maxConcurrency(2))
 *     .meterRegistry(registry));
 * Javalin.create(config -> {
 *   config.registerPlugin(sluice);   // first, so Sluice is the first before-handler
 *   config.routes.post("/api/transcode", ctx -> ...);
 *   config.routes.post("/api/rescue", sluice.limited("rescue", ctx -> ...));
 * }).start(7070);
 * }</pre>
 *
 * <p>Its handlers are added in {@link #onInitialize}, which Javalin runs inside
 * {@code registerPlugin}: handlers added in {@code onStart} would run after the user's own
 * before-handlers. Start-up fails with a {@link SluiceConfigException} naming the key and the value
 * when a setting is wrong, and ({@code sluice.strict}, the default) when a limiter's path or a
 * rule's resource reaches none of the application's routes, checked when the server starts.
 */
public final class SluicePlugin extends Plugin<SluiceConfig> {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  /** How long Jetty's thread pool waits for threads in cut requests before interrupting them. */
  static final long POOL_STOP_MILLIS = 300;

  private final Warnings warnings = Warnings.to(log);
  private final SluiceMeterBinder metrics = new SluiceMeterBinder();
  private final RuleCounters ruleCounters = new RuleCounters();
  private final AtomicReference<Server> server = new AtomicReference<>();
  private volatile SluiceProperties properties;
  private Settings settings;
  private Limiters limiters;
  private RateRules rules;
  private Gate gate;
  private Stores stores;
  private volatile Reloads reloads;
  private StatusReport status;
  private History history;
  private DisconnectWatch disconnects;
  private volatile UnreadBody unreadBody;
  private RouteCheck routeCheck; // set when the server starts
  private final Set<String> wrapped = ConcurrentHashMap.newKeySet();

  /** A plugin configured by the lambda; see {@link SluiceConfig}. */
  public SluicePlugin(Consumer<SluiceConfig> config) {
    super(config, new SluiceConfig());
  }

  /** A plugin configured by properties from the environment and system properties only. */
  public SluicePlugin() {
    this(cfg -> {});
  }

  @Override
  public void onInitialize(JavalinState state) {
    properties = pluginConfig.propertiesOrDefault();
    SluiceConfig code = pluginConfig;
    // the same resolution at start and on every reload; it knows the code's limiters, not the
    // plugin
    Function<SluiceProperties, Settings> resolve =
        p -> Settings.resolveChecked(p, code.limiters(), code.cpu(), warnings);
    settings = resolve.apply(properties);
    unreadBody = settings.unreadBody(pluginConfig.clock());
    if (!settings.enabled()) {
      log.info("Sluice is disabled ({}=false): nothing is limited", SluiceKeys.ENABLED.name());
      return;
    }
    state.jetty.modifyServer(this::prepareJetty);
    Executor executor = pluginConfig.executorOrNull() != null
        ? pluginConfig.executorOrNull()
        : this::executeOnJetty;
    stores = openStores(settings);
    // queue-wait percentiles cost a listener call per waiter: only for the live page
    QueueWaits waits =
        settings.dashboardPath().isPresent() ? new QueueWaits(pluginConfig.clock()) : null;
    limiters = Limiters.build(
        settings.limiters(),
        pluginConfig.clock(),
        pluginConfig.scheduler(),
        executor,
        waits == null
            ? metrics.concurrencyListener()
            : QueueWaits.both(metrics.concurrencyListener(), waits),
        Optional.ofNullable(stores).map(Stores::permits),
        warnings);
    // the page's last minutes, sampled on the scheduler: like the p99, only for the live page
    history = waits == null
        ? null
        : new History(
            limiters.all().stream().map(LimiterEntry::limiter).toList(),
            pluginConfig.cpu(),
            pluginConfig.clock(),
            History.RESOLUTION,
            History.POINTS);
    rules = buildRules();
    status = new StatusReport(limiters.all(), waits, history, ruleCounters, rules, stores);
    WarnOnce ruleFailures =
        new WarnOnce(warnings, "rate rules", pluginConfig.clock(), 30, TimeUnit.SECONDS);
    disconnects = new DisconnectWatch(executor);
    gate = new Gate(
        settings,
        limiters,
        rules,
        executor,
        pluginConfig.scheduler(),
        metrics,
        ruleFailures,
        disconnects,
        pluginConfig.clock());
    // registries before meters: a composite that gains a registry after its first meter warns
    // (rightly) that earlier recordings are missing from it
    pluginConfig.registries().forEach(metrics::bindTo);
    limiters.all().forEach(e -> metrics.gauges(e.name(), e.limiter()::snapshot));
    limiters.all().forEach(e -> metrics.queueGauges(e.name(), e.limiter()::queueSnapshot));
    limiters.all().stream()
        .filter(e -> e.config().scope() == Scope.GLOBAL)
        .forEach(e -> metrics.clusterLeases(e.name(), e.limiter()::clusterLeases));
    if (rules != null) {
      metrics.ruleCount(() -> rules.rules().rules().size());
    }
    if (stores != null) {
      metrics.store(stores::health);
    }
    reloads = new Reloads(
        settings,
        rules,
        properties,
        resolve,
        limiters,
        ruleFailures,
        warnings,
        pluginConfig.scheduler());

    if (settings.accountAttribute().isPresent()) {
      // the account comes from an auth before-handler, which must have run: wait for the matched
      // phase
      state.routes.beforeMatched(gate::before);
    } else {
      state.routes.before(gate::before);
    }
    if (!limiters.all().isEmpty()) {
      // without limiters no request holds a permit: no guard to run, nothing to give back after
      state.routes.beforeMatched(gate::guard);
      state.routes.after(gate::after);
    }
    settings.dashboardPath().ifPresent(path -> {
      Dashboard.register(state, path, status);
      log.info("Sluice live page at {}", path);
    });
    state.routes.exception(Rejection.class, this::answer);
    state.events.serverStarting(() -> checkRoutes(state));
    state.events.serverStarted(this::started);
    state.events.serverStopping(this::stopping);
    state.events.serverStopped(this::stopped);
  }

  /**
   * The exception handler for {@link Rejection}: an upload the plugin refuses unread has its body
   * read first (within {@code sluice.rejections.discard-*}), so the answer reaches the client
   * instead of a connection reset. A client gone while it waited reads no answer: nothing to read.
   */
  private void answer(Rejection rejection, io.javalin.http.Context ctx) {
    if (rejection.reason != Rejection.Reason.CANCELLED) {
      unreadBody.discard(ctx.req());
    }
    Answers.write(rejection, new ContextAnswer(ctx));
  }

  /**
   * Reads and drops what is left of the request's body, as the plugin does before its own refusals
   * ({@code sluice.rejections.discard-body} and {@code discard-time}), for an application handler
   * that refuses an upload without reading it. Call it before writing the answer: otherwise Jetty
   * closes the connection on the unread bytes, and the reset can reach the client before the
   * answer does. Works with {@code sluice.enabled=false} too.
   *
   * <pre>{@code
   * if (!allowed(ctx)) {
   *   sluice.discardBody(ctx);
   *   throw new ForbiddenResponse();
   * }
   * }</pre>
   *
   * @return true when nothing is left unread (there was no body, or it was read to its end);
   *     false when the body is larger than the bound, took too long, waits for {@code 100 Continue}
   *     or the client went away
   * @throws IllegalStateException before the plugin is registered
   */
  public boolean discardBody(io.javalin.http.Context ctx) {
    UnreadBody body = unreadBody;
    if (body == null) {
      throw new IllegalStateException("Sluice is not initialized (not registered)");
    }
    return body.discard(ctx.req());
  }

  /**
   * Checks, once the whole Javalin config has run (so every {@link #limited} call is known), that
   * each limiter guards something: a limiter with neither a path nor a wrapped handler is almost
   * always a misspelt name in the properties, which would otherwise create a second limiter that
   * guards nothing while the real one runs with its defaults.
   */
  @Override
  public void onStart(JavalinState state) {
    if (limiters == null) {
      return;
    }
    for (LimiterEntry e : limiters.all()) {
      if (e.pattern().isEmpty() && !wrapped.contains(e.name())) {
        LimiterConfig c = e.config();
        String nearest = UnknownKeys.nearest(
            e.name(),
            limiters.all().stream()
                .map(LimiterEntry::name)
                .filter(n -> !n.equals(e.name()))
                .toList());
        String source = c.isSet(LimiterKeys.PATH)
            ? c.source(LimiterKeys.PATH)
            : LimiterKeys.ALL.stream()
                .filter(c::isSet)
                .findFirst()
                .map(c::source)
                .orElse("code");
        throw new SluiceConfigException(
            c.property(LimiterKeys.PATH),
            null,
            source,
            "limiter '" + e.name() + "' has neither a path nor a handler wrapped with"
                + " sluice.limited(\"" + e.name() + "\", handler), so it would guard nothing"
                + (nearest == null ? "" : "; did you mean limiter '" + nearest + "'?"));
      }
    }
  }

  /**
   * Wraps an endpoint in a named limiter (declared in code or properties); use it for endpoints that
   * no path pattern covers. A request already admitted by the same limiter through its path is not
   * limited twice.
   *
   * @throws SluiceConfigException when no limiter has that name (with the nearest name)
   */
  public Handler limited(String limiterName, Handler handler) {
    if (limiters != null && limiters.byName(limiterName).isEmpty()) {
      String nearest = UnknownKeys.nearest(
          limiterName, limiters.all().stream().map(LimiterEntry::name).toList());
      throw new SluiceConfigException(
          SluiceProperties.LIMITERS + limiterName + ".*",
          null,
          "code",
          "no Sluice limiter named '" + limiterName + "'; declare it with cfg.limiter(..) or "
              + SluiceProperties.LIMITERS + limiterName + ".*"
              + (nearest == null ? "" : "; did you mean '" + nearest + "'?"));
    }
    wrapped.add(limiterName);
    return ctx -> {
      if (gate == null) {
        throw new IllegalStateException("Sluice is not initialized (disabled, or not registered)");
      }
      gate.limited(limiterName, handler, ctx);
    };
  }

  /** The named limiter, once the plugin is registered. */
  public Optional<ConcurrencyLimiter> limiter(String name) {
    return limiters == null ? Optional.empty() : limiters.byName(name).map(LimiterEntry::limiter);
  }

  /**
   * The settings the named limiter runs with, once the plugin is registered: its path, queue
   * discipline (key, classes, places per key) and queue timeout. With {@link #limiter} it is what
   * another door needs to guard its own calls with the same limiter, for instance a gRPC door:
   *
   * <pre>{@code
   * SluiceGrpc grpc = SluiceGrpc.builder()
   *     .shared("/transcode.Transcoder/*",
   *         sluice.limiterConfig("transcode").orElseThrow(),
   *         sluice.limiter("transcode").orElseThrow())
   *     .build();
   * }</pre>
   *
   * <p>A reload that changes the limiter's settings makes a new config: ask again to see it.
   */
  public Optional<LimiterConfig> limiterConfig(String name) {
    return limiters == null ? Optional.empty() : limiters.byName(name).map(LimiterEntry::config);
  }

  /** A snapshot of every limiter, in declaration order. */
  public List<ConcurrencySnapshot> snapshots() {
    return limiters == null
        ? List.of()
        : limiters.all().stream().map(e -> e.limiter().snapshot()).toList();
  }

  /**
   * The shared store's health (up, down, probing, or settling after it lost its state; decisions
   * made without it), or empty without global scope ({@code sluice.redis.uri}).
   */
  public Optional<StoreHealth> storeHealth() {
    Stores open = stores;
    return open == null ? Optional.empty() : Optional.of(open.health());
  }

  /** Every rate rule in force with what it decided (allowed, rejected, shadow-rejected). */
  public List<RuleSnapshot> ruleSnapshots() {
    return ruleCounters.snapshots(rules);
  }

  /**
   * What is left of the request's own deadline, for a handler that calls on further services: the
   * budget its limiter's {@code deadline-header} gave on arrival, less the time since (queueing
   * included), never negative. Empty when the request sent none (or its limiter reads none).
   *
   * <pre>{@code
   * Duration left = sluice.remainingBudget(ctx).orElse(Duration.ofSeconds(2));
   * backend.call(request, left);
   * }</pre>
   */
  public Optional<Duration> remainingBudget(io.javalin.http.Context ctx) {
    Long deadline = ctx.attribute(Gate.DEADLINE);
    if (deadline == null) {
      return Optional.empty();
    }
    return Optional.of(
        Duration.ofNanos(Math.max(0, deadline - pluginConfig.clock().nanoTime())));
  }

  /**
   * Every limiter and rule as JSON, written without a JSON library (so it works in an app without
   * Jackson): {@code app.get("/sluice", ctx -> ctx.contentType("application/json")
   * .result(sluice.statusJson()))}. The fields are listed in the README; the live page reads the
   * same document.
   */
  public String statusJson() {
    return status == null
        ? StatusReport.disabled(System.currentTimeMillis())
        : status.json(System.currentTimeMillis());
  }

  /** The rate rules engine, when rules are configured. */
  public Optional<RateRules> rateRules() {
    return Optional.ofNullable(rules);
  }

  /** The metrics; bind to any registry. */
  public SluiceMeterBinder meterBinder() {
    return metrics;
  }

  /** The properties in effect. */
  public SluiceProperties properties() {
    Reloads running = reloads;
    return running == null ? properties : running.properties();
  }

  /**
   * Re-reads the properties file (environment and {@code -D} still win, the defaults and the
   * derivation of {@link SluiceProperties} apply again) and applies the changes at once; a changed
   * {@code path} or {@code scope}, or a new limiter, waits for a restart. {@code
   * sluice.reload-interval} does this on the plugin's scheduler.
   *
   * @throws SluiceConfigException when a value is wrong; the previous limits stay in force
   */
  public void reload() {
    Reloads running = reloads;
    if (running != null) {
      running.reload();
    }
  }

  /**
   * Remembers the server (its thread pool runs woken waiters) and makes its stop graceful: Sluice
   * releases a permit in the after-handler, before Javalin writes the response, so draining permits
   * alone would let Jetty close connections under responses still being written.
   */
  private void prepareJetty(Server jetty) {
    server.set(jetty);
    if (jetty.getDescendant(GracefulHandler.class) == null
        && jetty.getDescendant(DrainHandler.class) == null) {
      jetty.insertHandler(new DrainHandler(new Answers(settings.statuses()).shuttingDown()));
    }
    jetty.setStopTimeout(
        Math.max(jetty.getStopTimeout(), settings.drainTimeout().toMillis()));
  }

  private void executeOnJetty(Runnable task) {
    Server s = server.get();
    if (s != null && s.getThreadPool() != null) {
      s.getThreadPool().execute(task);
    } else {
      ForkJoinPool.commonPool().execute(task); // only before the server exists
    }
  }

  private Stores openStores(Settings s) {
    if (s.redisUri().isEmpty()) {
      return null;
    }
    StoreSettings storeSettings = new StoreSettings(
        s.redisUri().get(),
        s.redisTimeout(),
        s.redisExpectedNodes(),
        s.redisOnFailure(),
        pluginConfig.clock(),
        s.redisConnectTimeout());
    Stores opened = StoreLoader.open(storeSettings)
        .orElseThrow(() -> new SluiceConfigException(
            SluiceKeys.REDIS_URI.name(),
            s.redisUri().get().toString(),
            properties.source(SluiceKeys.REDIS_URI.name()).orElse(null),
            "no dev.sluice.store.StoreProvider on the classpath supports this URI;"
                + " add the limiter-redis module or remove the key"));
    log.info("Sluice global scope through {}", opened.rates().describe());
    return opened;
  }

  private RateRules buildRules() {
    RuleSet ruleSet = settings
        .rulesFile()
        .map(file -> RulesSource.load(
            file,
            properties.file(),
            properties.source(SluiceKeys.RULES_FILE.name()).orElse(null)))
        .orElse(pluginConfig.rulesOrNull());
    if (ruleSet == null && settings.rulesRemote().isPresent()) {
      ruleSet = RuleSet.empty(); // remote rules only: nothing applies until the URL first answers
    }
    if (ruleSet == null) {
      return null;
    }
    RateRules.Builder builder = RateRules.builder()
        .rules(ruleSet)
        .clock(pluginConfig.clock())
        .maxKeysPerRule(settings.resolved().get(SluiceKeys.RULES_MAX_KEYS))
        .listener(RuleCounters.both(metrics.rateListener(), ruleCounters));
    if (stores != null) {
      builder.store(stores.rates());
    }
    pluginConfig.customActors().forEach(builder::customActor);
    log.info("Sluice rate rules: {} loaded", ruleSet.rules().size());
    return builder.build();
  }

  /**
   * Checks that every limiter path and rule resource reaches a route (see {@link RouteCheck}): run
   * when the server starts, after every plugin's {@code onStart}, when the route list is complete
   * (Javalin 7 declares routes only in the config). Strict, the first unmatched one stops start-up;
   * otherwise each is a warning.
   */
  private void checkRoutes(JavalinState state) {
    RouteCheck check = RouteCheck.of(state, settings.dashboardPath());
    routeCheck = check;
    if (check.skipped().isPresent()) {
      log.info(
          "Sluice does not check its paths against the routes: {}",
          check.skipped().get());
      return;
    }
    List<SluiceConfigException> problems = new ArrayList<>();
    for (LimiterEntry e : limiters.all()) {
      LimiterConfig c = e.config();
      e.pattern()
          .flatMap(p -> check.limiterProblem(e.name(), p))
          .ifPresent(problem -> problems.add(new SluiceConfigException(
              c.property(LimiterKeys.PATH),
              c.path().orElse(null),
              c.source(LimiterKeys.PATH),
              problem)));
    }
    if (rules != null) {
      for (Rule rule : rules.rules().rules()) {
        check.ruleProblem(rule).ifPresent(problem -> problems.add(ruleProblem(problem)));
      }
    }
    if (problems.isEmpty()) {
      return;
    }
    if (settings.strict()) {
      SluiceConfigException failure = UnknownKeys.strictFailure(problems, "unmatched");
      // even for a path set in code: this trace runs through app.start(), not the line that set it
      failure.setStackTrace(new StackTraceElement[0]);
      throw failure;
    }
    for (SluiceConfigException e : problems) {
      warnings.warn(
          "route " + e.key() + " " + e.problem(),
          e.getMessage() + " (started anyway: " + SluiceKeys.STRICT + "=false)");
    }
  }

  /** A rule that reaches no route, named by where the rules came from. */
  private SluiceConfigException ruleProblem(String problem) {
    String key = SluiceKeys.RULES_FILE.name();
    return settings.rulesFile().isPresent()
        ? new SluiceConfigException(
            key,
            settings.rulesFile().get().toString(),
            properties.source(key).orElse(null),
            problem)
        : new SluiceConfigException("rules", "cfg.rules(..)", LimiterConfig.CODE, problem);
  }

  private void started() {
    reloads.start(routeCheck);
    if (history != null) {
      history.start(pluginConfig.scheduler());
    }
  }

  /**
   * Stops within {@code drain-timeout} (plus Jetty's own stop, at most {@link #POOL_STOP_MILLIS}):
   * no new admissions, the queue rejected, the listening sockets closed (a new connection is
   * refused, which a load balancer retries elsewhere, and every answer from now on closes its
   * connection, so no client sends a request into a connection the stop will close), then one
   * deadline for in-flight requests, first those
   * holding a permit, then every request Jetty still runs (a response is written after its permit
   * is released, and unlimited endpoints run too). Requests still running at the deadline are cut
   * when Jetty closes the connections, and counted. Jetty's graceful stop would wait a second
   * drain-timeout after this one and report its expected timeout as an ERROR with a stack trace,
   * so its stop timeout is set to 0: this wait replaces it.
   */
  private void stopping() {
    long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
    gate.stopAdmitting();
    limiters.shutdown();
    closeListeners();
    Duration drain = settings.drainTimeout();
    log.info("Sluice stops admitting; waiting up to {} for in-flight requests", drain);
    try {
      limiters.awaitDrained(drain);
      long running = waitForJetty(deadline);
      if (running > 0) {
        metrics.shutdownCut(running);
        log.warn(
            "Sluice: {} request(s) still running after drain-timeout {}; they are cut",
            running,
            drain);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Server jetty = server.get();
    if (jetty != null) {
      jetty.setStopTimeout(0);
      if (jetty.getThreadPool() instanceof QueuedThreadPool pool) {
        // threads still in a cut request are interrupted after this instead of Jetty's 5 s
        pool.setStopTimeout(POOL_STOP_MILLIS);
      }
    }
  }

  /**
   * Jetty's graceful shutdown of each connector: its listening socket is closed, every response
   * from then on is sent with {@code Connection: close} and closes its connection, and connections
   * that carry no request are closed when idle for the connector's shutdown idle timeout (1 s).
   */
  private void closeListeners() {
    Server jetty = server.get();
    if (jetty != null) {
      for (Connector connector : jetty.getConnectors()) {
        // completes when its connections are closed; the drain below waits on requests instead
        java.util.concurrent.Future<Void> unused = connector.shutdown();
      }
    }
  }

  /** Waits until Jetty runs no request or the deadline passes; returns how many still run. */
  private long waitForJetty(long deadline) throws InterruptedException {
    Server jetty = server.get();
    // the application's own GracefulHandler if it installed one, else the one Sluice inserted
    GracefulHandler graceful = jetty == null ? null : jetty.getDescendant(GracefulHandler.class);
    DrainHandler drain = jetty == null ? null : jetty.getDescendant(DrainHandler.class);
    if (graceful == null && drain == null) {
      return limiters.all().stream()
          .mapToLong(e -> e.limiter().snapshot().inFlight())
          .sum();
    }
    // from here new requests get 503 from Jetty; the future completes when none runs
    java.util.concurrent.CompletableFuture<Void> quiet =
        graceful != null ? graceful.shutdown() : drain.shutdown();
    try {
      quiet.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return 0;
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      return graceful != null ? graceful.getCurrentRequestCount() : drain.running();
    }
  }

  private void stopped() {
    reloads.close();
    if (history != null) {
      history.close();
    }
    disconnects.close();
    if (stores != null) {
      stores.close();
    }
  }
}
