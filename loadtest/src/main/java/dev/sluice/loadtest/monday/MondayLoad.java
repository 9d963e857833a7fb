package dev.sluice.loadtest.monday;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.monday.MondayTally.Kind;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The Monday window against one service: 32 maintenance hosts re-transcoding clips of the library
 * in a loop (each sends its next job when its last one is answered, and waits out a 429's
 * {@code Retry-After}), 8 viewers looking up history twice a second each, and the rescue job
 * sending a critical job every {@code window / 30} (at least 5 s apart) into the same transcode
 * queue. A listener ({@link #onTry}) sees every transcode try as it ends, with its send time.
 */
public final class MondayLoad {

  /**
   * One transcode try (a maintenance host's or the rescue job's) as the client saw it.
   *
   * @param sentNanos when it was sent, {@link System#nanoTime()}
   * @param endNanos when it ended
   * @param status the HTTP status; {@link #NO_ANSWER} when it failed without one (reset, the
   *     client's timeout) or was still open when the load stopped after the drain
   * @param outcome the status as text, {@code reset}, {@code timeout} or {@code open}
   * @param retryAfter whether the answer carried {@code Retry-After}
   * @param problem whether the answer was {@code application/problem+json}
   */
  public record Try(
      long sentNanos,
      long endNanos,
      int status,
      String outcome,
      boolean retryAfter,
      boolean problem) {

    /** The status of a try without an answer. */
    public static final int NO_ANSWER = -1;

    static Try answered(long sent, HttpResponse<?> response) {
      return new Try(
          sent,
          System.nanoTime(),
          response.statusCode(),
          Integer.toString(response.statusCode()),
          response.headers().firstValue("Retry-After").isPresent(),
          response
              .headers()
              .firstValue("Content-Type")
              .orElse("")
              .startsWith("application/problem+json"));
    }

    static Try failed(long sent, String outcome) {
      return new Try(sent, System.nanoTime(), NO_ANSWER, outcome, false, false);
    }
  }

  static final int HOSTS = 32;
  static final int VIEWERS = 8;
  static final int RESCUE_JOBS = 30;
  /** Past the demo's own transcode timeout (120 s), so the service answers first. */
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(3);

  private static final Duration HISTORY_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI service;
  private final ClipLibrary library;
  private final List<Path> files;
  private final Duration window;
  private final Duration drain;
  private final long seed;
  private final MondayTally tally = new MondayTally();
  private final ExecutorService httpThreads = Executors.newCachedThreadPool(daemons("monday-http"));
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .executor(httpThreads)
      .build();
  private long startNanos;
  private long endNanos;
  private volatile Consumer<Try> onTry = t -> {};

  /**
   * @param service the service's base URI, ending in {@code /}
   * @param library the clips the hosts post
   * @param files where each clip of {@code library} is, in its order
   * @param window how long the hosts send jobs
   * @param drain how long to wait for open jobs after the window
   * @param seed the hosts' choice of clips
   */
  public MondayLoad(
      URI service,
      ClipLibrary library,
      List<Path> files,
      Duration window,
      Duration drain,
      long seed) {
    this.service = service;
    this.library = library;
    this.files = files;
    this.window = window;
    this.drain = drain;
    this.seed = seed;
  }

  /** Sees every transcode try as it ends (on the client's threads); set before {@link #run}. */
  public MondayLoad onTry(Consumer<Try> listener) {
    this.onTry = listener;
    return this;
  }

  /** Runs the window, then waits up to the drain for open jobs; the tally of what the clients saw. */
  // load-test tool: a periodic task that throws stops, which shows as missing samples in the report
  @SuppressWarnings("FutureReturnValueIgnored")
  public MondayTally run(long startNanos) throws InterruptedException {
    this.startNanos = startNanos;
    this.endNanos = startNanos + window.toNanos();
    List<Thread> hosts = new ArrayList<>();
    for (int i = 1; i <= HOSTS; i++) {
      String host = String.format(Locale.ROOT, "maintenance-host-%02d", i);
      Random random = new Random(seed * 31 + i);
      Thread thread = daemons("monday-" + host).newThread(() -> host(host, random));
      hosts.add(thread);
      thread.start();
    }
    ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, daemons("monday-timer"));
    ExecutorService rescues = Executors.newCachedThreadPool(daemons("monday-rescue"));
    Random ids = new Random(seed);
    for (int v = 1; v <= VIEWERS; v++) {
      String account = String.format(Locale.ROOT, "viewer-%02d", v);
      timers.scheduleAtFixedRate(
          () -> history(account, 1 + ids.nextInt(10_000)), 50L * v, 500, TimeUnit.MILLISECONDS);
    }
    // at least 5 s apart: the rescue job is one client, and the demo lets each X-Host-Id have one
    // job waiting, so rescue jobs closer than their service time would refuse each other
    long rescueEvery = Math.max(5_000, window.toMillis() / RESCUE_JOBS);
    timers.scheduleAtFixedRate(
        () -> rescues.execute(this::rescue), rescueEvery / 2, rescueEvery, TimeUnit.MILLISECONDS);
    TimeUnit.NANOSECONDS.sleep(Math.max(0, endNanos - System.nanoTime()));
    timers.shutdownNow();
    rescues.shutdown();
    long deadline = endNanos + drain.toNanos();
    for (Thread host : hosts) {
      host.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    }
    rescues.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    hosts.forEach(
        Thread::interrupt); // still waiting after the drain: their jobs are left unfinished
    rescues.shutdownNow();
    httpThreads.shutdownNow();
    return tally;
  }

  private void host(String host, Random random) {
    while (System.nanoTime() - endNanos < 0 && !Thread.currentThread().isInterrupted()) {
      int index = random.nextInt(library.clips().size());
      Clip clip = library.clips().get(index);
      int height = clip.renditions().get(random.nextInt(clip.renditions().size()));
      long sent = System.nanoTime();
      try {
        HttpResponse<String> response = http.send(
            job(clip, files.get(index), height, host, "normal"),
            HttpResponse.BodyHandlers.ofString());
        tally.tried(Kind.MAINTENANCE, Integer.toString(response.statusCode()));
        onTry.accept(Try.answered(sent, response));
        if (response.statusCode() == 200) {
          tally.completed(seconds(System.nanoTime()));
        } else {
          backOff(response);
        }
      } catch (InterruptedException e) {
        onTry.accept(Try.failed(sent, "open")); // still waiting when the drain ended
        return;
      } catch (IOException e) {
        String outcome = e instanceof HttpTimeoutException ? "timeout" : "reset";
        tally.tried(Kind.MAINTENANCE, outcome);
        onTry.accept(Try.failed(sent, outcome));
        if (!pause(1000)) {
          return;
        }
      }
    }
  }

  /** A 429 waits out its Retry-After (to the end of the window at most); anything else a second. */
  private void backOff(HttpResponse<String> response) {
    long millis = 1000;
    if (response.statusCode() == 429) {
      millis = response
          .headers()
          .firstValue("Retry-After")
          .map(v -> {
            try {
              return Long.parseLong(v.trim()) * 1000;
            } catch (NumberFormatException e) {
              return 1000L;
            }
          })
          .orElse(1000L);
    }
    pause(Math.min(millis, Math.max(0, (endNanos - System.nanoTime()) / 1_000_000)));
  }

  private static boolean pause(long millis) {
    try {
      Thread.sleep(millis); // a client backing off, not a test waiting
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The rescue job: critical, tried until served, at most 3 times, waiting out a 429. */
  private void rescue() {
    tally.rescueStarted();
    long due = System.nanoTime();
    Clip clip = library.rescueClip();
    Path file = files.get(library.clips().indexOf(clip));
    for (int attempt = 1; attempt <= 3; attempt++) {
      long sent = System.nanoTime();
      try {
        HttpResponse<String> response = http.send(
            job(clip, file, clip.renditions().get(0), "video-rescue", "critical"),
            HttpResponse.BodyHandlers.ofString());
        tally.tried(Kind.RESCUE, Integer.toString(response.statusCode()));
        onTry.accept(Try.answered(sent, response));
        if (response.statusCode() == 200) {
          tally.rescueServed(
              JSON.readTree(response.body()).path("queuedMillis").asDouble(),
              (System.nanoTime() - due) / 1e6);
          return;
        }
        backOff(response);
      } catch (InterruptedException e) {
        onTry.accept(Try.failed(sent, "open"));
        Thread.currentThread().interrupt();
        return;
      } catch (IOException e) {
        String outcome = e instanceof HttpTimeoutException ? "timeout" : "reset";
        tally.tried(Kind.RESCUE, outcome);
        onTry.accept(Try.failed(sent, outcome));
      }
    }
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void history(String account, int id) {
    long due = System.nanoTime();
    http.sendAsync(
            HttpRequest.newBuilder(service.resolve("api/history/" + id))
                .timeout(HISTORY_TIMEOUT)
                .header("X-Account-Id", account)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .whenComplete((response, error) -> {
          tally.tried(
              Kind.HISTORY,
              response != null
                  ? Integer.toString(response.statusCode())
                  : error instanceof HttpTimeoutException
                          || error.getCause() instanceof HttpTimeoutException
                      ? "timeout"
                      : "reset");
          tally.history((System.nanoTime() - due) / 1e6);
        });
  }

  private HttpRequest job(Clip clip, Path file, int height, String host, String priority)
      throws FileNotFoundException {
    return HttpRequest.newBuilder(service.resolve("api/transcode?height=" + height))
        .timeout(JOB_TIMEOUT)
        .header("Content-Type", "video/mp4")
        .header("X-Host-Id", host)
        .header("X-Priority", priority)
        .header(Clip.COST_HEADER, Integer.toString(clip.costUnits()))
        .POST(HttpRequest.BodyPublishers.ofFile(file))
        .build();
  }

  private double seconds(long nanos) {
    return (nanos - startNanos) / 1e9;
  }

  private static ThreadFactory daemons(String name) {
    return r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
