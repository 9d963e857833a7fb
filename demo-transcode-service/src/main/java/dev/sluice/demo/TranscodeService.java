package dev.sluice.demo;

import dev.sluice.config.SluiceProperties;
import dev.sluice.grpc.SluiceGrpc;
import dev.sluice.javalin.SluicePlugin;
import dev.sluice.time.DurationText;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transcoding service of the Monday-maintenance scenario, protected by Sluice.
 *
 * <pre>java -jar demo-transcode-service/target/demo-transcode-service.jar [--config FILE]</pre>
 */
public final class TranscodeService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TranscodeService.class);

  /** The plugin's default {@code sluice.shutdown.drain-timeout}. */
  private static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);

  /** The limiter of {@code POST /api/transcode}, which the gRPC door shares. */
  static final String TRANSCODE_LIMITER = "transcode";

  private final Javalin app;
  private final JobEngine engine;
  private final Duration drain;
  private final GrpcDoor grpc; // null: no gRPC door

  private TranscodeService(Javalin app, JobEngine engine, Duration drain, GrpcDoor grpc) {
    this.app = app;
    this.engine = engine;
    this.drain = drain;
    this.grpc = grpc;
  }

  public static void main(String[] args) {
    DemoSettings settings;
    try {
      settings = DemoSettings.load(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    TranscodeService service;
    try {
      service = start(settings);
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println(
          e.getMessage()); // one line: demo.engine=ffmpeg without ffmpeg, a bad demo.ffmpeg.* value
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "shutdown"));
  }

  /**
   * Starts on {@code server.port} (0: a free port, see {@link #port()}), and the gRPC door on
   * {@code demo.grpc.port} when it is set (see {@link #grpcPort()}). {@code /health} answers 503
   * {@code {"status":"starting"}} until both doors accept, then {@code {"status":"up"}}.
   *
   * @throws IllegalStateException {@code demo.engine=ffmpeg} and ffmpeg is not on PATH
   * @throws IllegalArgumentException {@code demo.grpc.port} with {@code demo.engine=ffmpeg}
   */
  public static TranscodeService start(DemoSettings settings) {
    return start(settings, System.getenv("PATH"));
  }

  /** With the PATH where {@code demo.engine=ffmpeg} looks for ffmpeg and ffprobe. */
  static TranscodeService start(DemoSettings settings, String path) {
    if (settings.grpcPort() != 0 && settings.engine() != Engine.FRAMES) {
      throw new IllegalArgumentException(DemoSettings.GRPC_PORT + "=" + settings.grpcPort()
          + ": the gRPC door runs the frames engine's jobs only, but " + Engine.KEY + " is "
          + settings.engine().name().toLowerCase(java.util.Locale.ROOT));
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // the demo's layered settings (jar, --config, env, -D) are the plugin's properties
    SluicePlugin sluice = new SluicePlugin(
        cfg -> cfg.properties(settings.sluiceProperties()).meterRegistry(registry));
    JobEngine jobs = switch (settings.engine()) {
      case FRAMES ->
        new JobEndpoints(
            settings.framesPerMilli().isPresent()
                ? FrameTranscoder.withRate(settings.framesPerMilli().getAsDouble())
                : FrameTranscoder.calibrated(),
            settings.maxCpuMillis(),
            settings.maxWaitMillis());
      // its own refusals read an upload's body as the plugin's do, with the same bounds
      case FFMPEG ->
        new FfmpegJobs(
            FfmpegTools.onPath(path), FfmpegSettings.from(settings), sluice::discardBody);
    };
    new ProcessorMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);

    String overheadPeer =
        Peer.check(OverheadPeer.KEY, settings.get(OverheadPeer.KEY).orElse("none"));
    String limiterPeer = settings.limiterPeer().id();
    int cores = Runtime.getRuntime().availableProcessors();
    // measurement aids, found on the load test's class path: another project's limiter in front
    // of /api/transcode instead of Sluice's, or in front of /api/ping; each may add to /sluice
    List<UnaryOperator<String>> status = new ArrayList<>();

    AtomicBoolean doorsOpen = new AtomicBoolean();
    Javalin app = Javalin.create(config -> {
      // detected by reflection: on JDK 21+ handlers run on virtual threads, on 17 the
      // setting is ignored and Jetty's platform threads serve
      config.concurrency.useVirtualThreads = true;
      config.requestLogger.http(RequestLog::log);
      // Two cheap before-handlers that cannot block go in front of Sluice, on purpose: the
      // arrival stamp must come before the queue so queuedMillis includes the wait, and a bad
      // job is refused 400 before it takes a queue place, a permit or rate quota from valid
      // ones. Everything else is behind Sluice: the plugin adds its handlers inside
      // registerPlugin (onInitialize), so registering it right after these makes it the
      // first filter that decides anything.
      config.routes.before(ctx -> ctx.attribute(JobEndpoints.RECEIVED, System.nanoTime()));
      config.routes.before("/api/transcode", jobs::validate);
      config.routes.before("/api/rescue", jobs::validate);
      config.registerPlugin(sluice);
      // a job that waited (waitMillis) does its CPU work on Jetty's threads, like one that did not
      if (jobs instanceof JobEndpoints frames) {
        config.jetty.modifyServer(server -> frames.runOn(server.getThreadPool()));
      }
      config.routes.exception(BadRequest.class, (e, ctx) -> badRequest(ctx, e));
      config.routes.exception(JobProblem.class, (e, ctx) -> jobProblem(ctx, e));
      for (String key : List.of(OverheadPeer.KEY, LimiterPeer.KEY)) {
        String id = key.equals(OverheadPeer.KEY) ? overheadPeer : limiterPeer;
        Peer.find(key, id).ifPresent(p -> status.add(p.install(id, config, settings::get, cores)));
      }

      // the limiters guard these by path (sluice.limiters.<name>.path), so with
      // sluice.enabled=false the same endpoints run unguarded
      config.routes.post("/api/transcode", ctx -> jobs.job(ctx, "transcode"));
      config.routes.post("/api/rescue", ctx -> jobs.job(ctx, "rescue"));
      config.routes.get("/api/history/{id}", HistoryEndpoint::history);
      // the light endpoint of the load test's overhead run: no limiter or rule by default
      config.routes.get(OverheadPeer.PATH, ctx -> ctx.result("pong"));
      // /health is in sluice.bypass-paths (the default list): never limited. It answers "up"
      // only once every door accepts: the gRPC door opens after the HTTP server has started
      config.routes.get("/health", ctx -> {
        if (doorsOpen.get()) {
          ctx.json(Map.of("status", "up"));
        } else {
          ctx.status(503).json(Map.of("status", "starting"));
        }
      });
      config.routes.get(
          "/metrics",
          ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
              .result(registry.scrape()));
      // the plugin's own status (one shape with its live page's data), plus a peer if any
      config.routes.get(
          "/sluice",
          ctx ->
              ctx.contentType("application/json").result(peerStatus(status, sluice.statusJson())));
    });
    app.start(settings.port());
    GrpcDoor grpc = null;
    if (settings.grpcPort() != 0 && jobs instanceof JobEndpoints frames) {
      try {
        grpc = GrpcDoor.start(settings.grpcPort(), frames, grpcSluice(sluice));
      } catch (RuntimeException e) {
        app.stop();
        throw new IllegalStateException(e.getMessage(), e);
      }
      LOG.info(
          "gRPC door on port {}: {} {}",
          grpc.port(),
          TranscodeRpc.TRANSCODE.getFullMethodName(),
          grpc.guarded()
              ? "behind limiter '" + TRANSCODE_LIMITER + "', shared with POST /api/transcode"
              : "unguarded, as POST /api/transcode is");
    }
    LOG.info(
        "transcoding service on port {}: engine {}, {} cores, virtual threads {}, "
            + "overhead peer {}, limiter peer {}, {}",
        app.port(),
        jobs.describe(),
        cores,
        Runtime.version().feature() >= 21
            ? "on"
            : "off (JDK " + Runtime.version().feature() + ")",
        overheadPeer,
        limiterPeer,
        settings.sluice());
    Duration drain = settings
        .get("sluice.shutdown.drain-timeout")
        .map(DurationText::parse)
        .orElse(DEFAULT_DRAIN);
    doorsOpen.set(true);
    return new TranscodeService(app, jobs, drain, grpc);
  }

  /**
   * Sluice's gRPC interceptor over the plugin's own transcode limiter (the same instance, so both
   * doors share its permits and its queue, with its queue discipline read from the call's
   * metadata), or null when {@code /api/transcode} has none ({@code sluice.enabled=false}, a
   * limiter peer in its place). The interceptor gets no properties of its own: the plugin's would
   * declare the transcode limiter a second time.
   */
  private static SluiceGrpc grpcSluice(SluicePlugin sluice) {
    return sluice
        .limiter(TRANSCODE_LIMITER)
        .map(limiter -> SluiceGrpc.builder()
            .properties(
                SluiceProperties.builder().env(Map.of()).system(Map.of()).build())
            .shared(
                GrpcDoor.METHODS, sluice.limiterConfig(TRANSCODE_LIMITER).orElseThrow(), limiter)
            .build())
        .orElse(null);
  }

  private static String peerStatus(List<UnaryOperator<String>> peers, String status) {
    for (UnaryOperator<String> peer : peers) {
      status = peer.apply(status);
    }
    return status;
  }

  private static void badRequest(Context ctx, BadRequest e) {
    ctx.status(400)
        .contentType("application/problem+json")
        .json(Map.of(
            "type",
            "about:blank",
            "title",
            "Bad Request",
            "status",
            400,
            "detail",
            e.getMessage(),
            "parameter",
            e.parameter));
    // ctx.json sets application/json; the problem type must win
    ctx.contentType("application/problem+json");
  }

  private static void jobProblem(Context ctx, JobProblem e) {
    ctx.status(e.status)
        .json(Map.of(
            "type",
            "about:blank",
            "title",
            e.title(),
            "status",
            e.status,
            "detail",
            e.getMessage(),
            "problem",
            e.problem));
    ctx.contentType("application/problem+json");
  }

  public int port() {
    return app.port();
  }

  /** The gRPC door's port ({@code demo.grpc.port}), or 0 when there is no door. */
  public int grpcPort() {
    return grpc == null ? 0 : grpc.port();
  }

  /**
   * Stops as the plugin drains: no new admissions, queued jobs rejected, running ones given the
   * drain deadline ({@code sluice.shutdown.drain-timeout}). Child processes are ended a little
   * before it (a tenth of it, at least a second), so their requests are still answered 503 and
   * counted inside the deadline instead of being cut by the plugin; whatever still runs when the
   * server has stopped is ended too. The gRPC door takes new calls until the HTTP server has
   * stopped, answering them as the limiter does while it drains ({@code UNAVAILABLE} with a
   * pushback), then stops, giving the calls still open a few seconds.
   */
  @Override
  public void close() {
    long margin = Math.max(drain.toMillis() / 10, 1000);
    long cutMillis = Math.max(0, drain.toMillis() - margin);
    CompletableFuture<Void> cut = CompletableFuture.runAsync(
        engine::close, CompletableFuture.delayedExecutor(cutMillis, TimeUnit.MILLISECONDS));
    try {
      app.stop();
    } finally {
      cut.cancel(false);
      if (grpc != null) {
        grpc.close(Duration.ofSeconds(5));
      }
      engine.close();
    }
  }
}
