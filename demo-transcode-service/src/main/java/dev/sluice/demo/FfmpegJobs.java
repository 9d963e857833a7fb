package dev.sluice.demo;

import dev.sluice.javalin.DisconnectWatch;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The heavy jobs of the {@code ffmpeg} engine: the body is the footage ({@code video/mp4}), {@code
 * height} the rendition. A job reads the upload into a folder of its own, probes it with ffprobe
 * (bad footage is refused with the reason; a good one's cost is known), transcodes it with ffmpeg
 * (libx264, {@code demo.ffmpeg.threads}), probes the rendition and answers JSON. The folder is
 * removed whatever happens, and no child outlives the request ({@link ChildProcesses}).
 *
 * <p>Nothing is read or run before the limiter admits the request: a job rejected while queued
 * leaves no file and started no process. The probe's cost estimate is therefore known after
 * admission; what the limiter can weigh a job by is the client's declaration ({@link
 * DeclaredCost}), checked against the probe before ffmpeg runs.
 */
final class FfmpegJobs implements JobEngine {

  /** Request attribute: the {@link Rendition} asked for, checked in front of the limiter. */
  static final String RENDITION = "demo.rendition";
  /** Request attribute: the upload's {@link Footage}, set once probed. */
  static final String FOOTAGE = "demo.footage";
  /** Request attribute: the job's {@link Footage#costEstimate} (a {@code Double}), set once probed. */
  static final String COST_ESTIMATE = "demo.costEstimate";

  private final FfmpegTools tools;
  private final FfmpegSettings settings;
  private final ChildProcesses children = new ChildProcesses();
  private final FootageProbe probe;
  private final AtomicLong ids = new AtomicLong();
  private final Consumer<Context> discardBody;
  /**
   * Notices a client that hangs up mid-transcode (Jetty does not read a connection whose request is
   * being handled), so its children are stopped instead of working for nobody.
   */
  private final DisconnectWatch hangUps = new DisconnectWatch(Runnable::run);

  /**
   * An engine whose jobs run {@code tools}, within {@code settings}.
   *
   * @param discardBody reads and drops a refused request's body before the answer ({@link
   *     dev.sluice.javalin.SluicePlugin#discardBody}, bounded by {@code
   *     sluice.rejections.discard-body} and {@code discard-time}): otherwise Jetty closes the
   *     connection on the unread bytes, and the TCP reset can overtake the 4xx, so the client sees
   *     a reset or "received no bytes" (on loopback about one in ten 30 MB uploads refused for a
   *     bad height, with the JDK's client)
   */
  FfmpegJobs(FfmpegTools tools, FfmpegSettings settings, Consumer<Context> discardBody) {
    this.tools = tools;
    this.settings = settings;
    this.discardBody = discardBody;
    this.probe = new FootageProbe(tools.ffprobe(), children);
    try {
      Files.createDirectories(settings.tempDir());
    } catch (IOException e) {
      throw new IllegalStateException(FfmpegSettings.TEMP_DIR + ": cannot create '"
          + settings.tempDir() + "': " + e.getMessage());
    }
  }

  @Override
  public void validate(Context ctx) {
    try {
      check(ctx);
    } catch (BadRequest | JobProblem e) {
      // a body declared larger than max-bytes is not read: its 413 stays a hard close, as a limit
      // on what the service reads must
      if (ctx.req().getContentLengthLong() <= settings.maxBytes()) {
        discardBody.accept(ctx);
      }
      throw e;
    }
  }

  private void check(Context ctx) {
    ctx.attribute(RENDITION, Rendition.of(ctx.queryParam(Rendition.PARAMETER)));
    String type = ctx.contentType();
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("video/mp4")) {
      throw JobProblem.wrongType("the body must be video/mp4 but Content-Type was '" + type + "'");
    }
    long length = ctx.req().getContentLengthLong();
    if (length == 0) {
      throw JobProblem.noFootage();
    }
    if (length > settings.maxBytes()) {
      throw JobProblem.tooLarge(tooLarge(length + " bytes"));
    }
    settings.cost().read(ctx);
  }

  @Override
  public void job(Context ctx, String endpoint) {
    long started = System.nanoTime();
    Rendition rendition = ctx.attribute(RENDITION);
    if (rendition
        == null) { // validate runs in front; with the engine swapped in a test, check here
      validate(ctx);
      rendition = ctx.attribute(RENDITION);
    }
    long id = ids.incrementAndGet();
    String jobId = String.format(Locale.ROOT, "%s-%06d", endpoint, id);
    Path folder;
    try {
      folder = Files.createTempDirectory(settings.tempDir(), jobId + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("no job folder in " + settings.tempDir(), e);
    }
    Runnable stopWatching = () -> {};
    try {
      Path upload = folder.resolve("footage.mp4");
      upload(ctx, upload);
      long uploaded = System.nanoTime();
      // watched once the body is read in full, so upload bytes never look like a hang-up
      AtomicBoolean gone = new AtomicBoolean();
      stopWatching = hangUps.watch(ctx.req(), () -> gone.set(true));
      BooleanSupplier wanted = () -> !gone.get();
      Footage source = probe.probe(upload, folder, wanted);
      if (source.durationSeconds() > settings.maxSeconds()) {
        throw JobProblem.tooLong(String.format(
            Locale.ROOT,
            "the footage lasts %.1f s; at most %d s (demo.ffmpeg.max-seconds)",
            source.durationSeconds(),
            settings.maxSeconds()));
      }
      settings.cost().check(ctx, source);
      double cost = source.costEstimate(rendition);
      ctx.attribute(FOOTAGE, source);
      ctx.attribute(COST_ESTIMATE, cost);
      long probed = System.nanoTime();
      Path output = folder.resolve("rendition.mp4");
      transcode(upload, output, rendition, folder, wanted);
      long transcoded = System.nanoTime();
      Footage made = probe.probe(output, folder, wanted);
      if (made.durationSeconds() < source.durationSeconds() * 0.9 - 0.5) {
        // an mp4 with its index in front (faststart) still probes when cut short; ffmpeg then
        // transcodes what is there and stops early without an error
        throw JobProblem.truncated(String.format(
            Locale.ROOT,
            "the footage is truncated: it declares %.1f s but holds %.1f s",
            source.durationSeconds(),
            made.durationSeconds()));
      }
      long finished = System.nanoTime();
      Long received = ctx.attribute(JobEndpoints.RECEIVED);
      ctx.json(new RenditionResult(
          jobId,
          endpoint,
          made,
          Files.size(output),
          source,
          cost,
          settings.threads(),
          received == null ? 0 : (started - received) / 1e6,
          (uploaded - started) / 1e6,
          (probed - uploaded) / 1e6,
          (transcoded - probed) / 1e6,
          (finished - started) / 1e6));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      stopWatching.run();
      delete(folder);
    }
  }

  /** Copies the body into {@code file}, at most {@code demo.ffmpeg.max-bytes} of it. */
  private long upload(Context ctx, Path file) {
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    try (InputStream in = ctx.req().getInputStream();
        OutputStream out = Files.newOutputStream(file)) {
      for (int n; (n = read(in, buffer)) >= 0; ) {
        total += n;
        if (total > settings.maxBytes()) {
          throw JobProblem.tooLarge(tooLarge("more than " + settings.maxBytes() + " bytes"));
        }
        out.write(buffer, 0, n);
      }
    } catch (IOException e) { // writing the job's folder: the service's fault, not the client's
      throw new UncheckedIOException("cannot store the upload in " + file.getParent(), e);
    }
    if (total == 0) {
      throw JobProblem.noFootage();
    }
    return total;
  }

  /** A failed read of the body is the client's doing: Jetty's EofException when it hangs up mid-upload. */
  private static int read(InputStream in, byte[] buffer) {
    try {
      return in.read(buffer);
    } catch (IOException e) {
      throw JobProblem.clientGone();
    }
  }

  private void transcode(
      Path input, Path output, Rendition rendition, Path folder, BooleanSupplier wanted)
      throws IOException {
    String threads = Integer.toString(settings.threads());
    List<String> command = new ArrayList<>(List.of(
        tools.ffmpeg().toString(),
        "-nostdin",
        "-hide_banner",
        "-v",
        "error",
        "-y",
        "-filter_threads",
        threads,
        "-threads",
        threads,
        "-i",
        input.toString(),
        "-map",
        "0:v:0",
        "-map",
        "0:a:0?",
        "-vf",
        "scale=-2:" + rendition.height,
        "-c:v",
        "libx264",
        "-preset",
        settings.preset(),
        "-pix_fmt",
        "yuv420p",
        "-threads",
        threads,
        "-c:a",
        "aac",
        "-b:a",
        "96k",
        "-movflags",
        "+faststart",
        output.toString()));
    Path err = folder.resolve("ffmpeg-errors");
    int exit =
        children.run(command, folder.resolve("ffmpeg-output"), err, settings.timeout(), wanted);
    if (exit != 0) {
      // it probed as a video but its frames do not decode: bad footage, not a fault of the service
      throw JobProblem.notAVideo(
          "ffmpeg could not transcode the footage: " + FootageProbe.lastLine(err));
    }
  }

  private String tooLarge(String size) {
    return "the footage is " + size + "; at most " + settings.maxBytes()
        + " bytes (demo.ffmpeg.max-bytes)";
  }

  private static void delete(Path folder) {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      org.slf4j.LoggerFactory.getLogger(FfmpegJobs.class)
          .warn("cannot remove {}: {}", folder, e.toString());
    }
  }

  @Override
  public String describe() {
    return "ffmpeg (" + tools.ffmpeg() + ", -threads " + settings.threads() + ", preset "
        + settings.preset() + ", at most " + settings.maxBytes() + " bytes and "
        + settings.maxSeconds() + " s of footage, temp " + settings.tempDir() + ")";
  }

  /** Kills the transcodes still running: the service is stopping past its drain deadline. */
  @Override
  public void close() {
    hangUps.close();
    children.endAll();
  }
}
