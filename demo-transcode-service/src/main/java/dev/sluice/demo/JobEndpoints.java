package dev.sluice.demo;

import io.javalin.http.Context;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The handlers of the heavy jobs and of the light history lookups. */
final class JobEndpoints {

  /** Set by the first before-handler: when the request reached the service. */
  static final String RECEIVED = "demo.receivedNanos";

  static final String CPU_MILLIS = "demo.cpuMillis";

  private final FrameTranscoder transcoder;
  private final int maxCpuMillis;
  private final AtomicLong ids = new AtomicLong();

  JobEndpoints(FrameTranscoder transcoder, int maxCpuMillis) {
    this.transcoder = transcoder;
    this.maxCpuMillis = maxCpuMillis;
  }

  /**
   * Runs before the limiter: a bad {@code cpuMillis} is answered 400 without taking a queue place or
   * a permit from a valid job.
   */
  void validate(Context ctx) {
    ctx.attribute(CPU_MILLIS, CpuMillis.parse(ctx.queryParam("cpuMillis"), maxCpuMillis));
  }

  void job(Context ctx, String endpoint) {
    long started = System.nanoTime();
    Integer cpuMillis = ctx.attribute(CPU_MILLIS);
    int cpu = cpuMillis != null ? cpuMillis : CpuMillis.parse(ctx.queryParam("cpuMillis"), maxCpuMillis);
    long id = ids.incrementAndGet();
    int frames = transcoder.framesFor(cpu);
    long bytes = transcoder.compress(frames, id);
    long finished = System.nanoTime();
    Long received = ctx.attribute(RECEIVED);
    ctx.json(
        new JobResult(
            String.format(Locale.ROOT, "%s-%06d", endpoint, id),
            endpoint,
            cpu,
            frames,
            bytes,
            received == null ? 0 : (started - received) / 1e6,
            (finished - started) / 1e6));
  }

  /** A light lookup: what an archive index would answer about one piece of footage. */
  void history(Context ctx) {
    String id = ctx.pathParam("id");
    if (id.length() > 64) {
      throw new BadRequest("id", id.substring(0, 64) + "...", "must be at most 64 characters");
    }
    String account = ctx.header("X-Account-Id");
    ctx.json(
        Map.of(
            "id", id,
            "account", account == null ? "anonymous" : account,
            "status", "archived",
            "renditions", new String[] {"1080p", "720p", "480p"}));
  }
}
