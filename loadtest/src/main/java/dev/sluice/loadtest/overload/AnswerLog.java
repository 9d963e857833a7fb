package dev.sluice.loadtest.overload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.Reply;
import dev.sluice.loadtest.engine.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * Every try of a run with its timing, between the client and HTTP ({@link #wrap}): the run's own
 * histograms cover the whole run, while the sweep needs its steady window and the step test needs
 * latency second by second.
 *
 * <p>The intended send time is the arrival's offset from the run's start, and the start is not
 * handed to a transport; it is recovered as the earliest {@code sent - offset} over all tries. The
 * dispatcher never sends early, so that is the start up to the lateness of the most punctual send
 * (well under a millisecond), and each latency still runs from the intended send, as the engine's
 * do: a late timer shows in the figures rather than hiding (coordinated omission).
 */
final class AnswerLog {

  private static final ObjectMapper JSON = new ObjectMapper();

  private record Try(
      String size,
      long offsetNanos,
      long sentNanos,
      long answeredNanos,
      int status,
      String reason,
      double jobCpuMillis) {}

  private final LongSupplier nanoClock;
  private final Queue<Try> tries = new ConcurrentLinkedQueue<>();

  /** @param nanoClock a monotonic clock ({@code System::nanoTime}) */
  AnswerLog(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** The transport, logging each try; it changes none. */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  UnaryOperator<Transport> wrap() {
    return inner -> arrival -> {
      long sent = nanoClock.getAsLong();
      CompletableFuture<Reply> reply = inner.send(arrival);
      reply.whenComplete((r, error) -> record(arrival, sent, r, error));
      return reply;
    };
  }

  private void record(Arrival arrival, long sent, Reply reply, Throwable error) {
    long answered = nanoClock.getAsLong();
    int status = error != null ? Answer.IO_ERROR : reply.status();
    JsonNode body = reply == null ? null : json(reply.body());
    String reason = status / 100 == 2 ? null : reason(body);
    double jobCpu =
        status / 100 == 2 && body != null && body.path("cpuUsedMillis").isNumber()
            ? body.get("cpuUsedMillis").asDouble()
            : Double.NaN;
    tries.add(
        new Try(arrival.stream(), arrival.offsetNanos(), sent, answered, status, reason, jobCpu));
  }

  /** Every try so far, timed from the recovered start of the run. */
  List<Answer> answers() {
    List<Try> all = new ArrayList<>(tries);
    if (all.isEmpty()) {
      return List.of();
    }
    // the earliest sent - offset, compared by difference from the first: nanoTime may wrap
    long first = all.get(0).sentNanos - all.get(0).offsetNanos;
    long earliest =
        all.stream().mapToLong(t -> t.sentNanos - t.offsetNanos - first).min().orElseThrow();
    long start = first + earliest;
    return all.stream()
        .map(t -> new Answer(
            t.size,
            t.offsetNanos / 1e9,
            (t.answeredNanos - start) / 1e9,
            t.status,
            t.reason,
            t.jobCpuMillis))
        .toList();
  }

  private static String reason(JsonNode node) {
    if (node == null) {
      return null;
    }
    return node.path("reason").isTextual()
        ? node.get("reason").asText()
        : node.path("title").isTextual() ? node.get("title").asText() : null;
  }

  /** The body as JSON, or null when it is none (empty, HTML, cut short). */
  private static JsonNode json(String body) {
    try {
      JsonNode node = JSON.readTree(body == null ? "" : body);
      return node == null || node.isMissingNode() ? null : node;
    } catch (Exception notJson) {
      return null;
    }
  }
}
