package dev.sluice.peers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The handlers that put a Netflix {@code SimpleLimiter} in front of {@code /api/transcode}: acquire before the endpoint (429
 * problem+json when the peer says no), release after it (success for a 2xx, ignored otherwise so an
 * error does not count as a latency sample).
 */
final class PeerGate {

  private static final String LISTENER = "demo.peerListener";
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String PATH = "/api/transcode";

  private final String id;
  private final SimpleLimiter<Void> limiter;
  private final AtomicLong admitted = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();

  /**
   * @param id the peer's name, in {@code /sluice} and in its 429 answers
   */
  PeerGate(String id, Limit limit) {
    this.id = id;
    this.limiter = SimpleLimiter.newBuilder().named(id).limit(limit).build();
  }

  /** Installs the handlers; call inside {@code Javalin.create}, after the parameter check, before the routes. */
  void install(JavalinConfig config) {
    config.routes.before(PATH, this::acquire);
    config.routes.after(PATH, this::release);
    config.routes.exception(Rejected.class, (e, ctx) -> reject(ctx));
  }

  private void acquire(Context ctx) {
    Optional<Limiter.Listener> listener = limiter.acquire(null);
    if (listener.isEmpty()) {
      rejected.incrementAndGet();
      throw new Rejected(); // skips the endpoint; the mapper answers
    }
    admitted.incrementAndGet();
    ctx.attribute(LISTENER, listener.get());
  }

  private void release(Context ctx) {
    Limiter.Listener listener = ctx.attribute(LISTENER);
    if (listener == null) {
      return; // rejected, or refused before the peer (400)
    }
    ctx.attribute(LISTENER, null);
    if (ctx.statusCode() / 100 == 2) {
      listener.onSuccess();
    } else {
      listener.onIgnore();
    }
  }

  private void reject(Context ctx) {
    ctx.status(429)
        .json(Map.of(
            "type",
            "about:blank",
            "title",
            "Too Many Requests",
            "status",
            429,
            "detail",
            id + " is at its limit of " + limiter.getLimit(),
            "limiter",
            id));
    ctx.contentType("application/problem+json");
  }

  /**
   * The plugin's status with the peer added to its limiters, so the load test charts the peer's
   * limit beside Sluice's: the fields of a Sluice limiter that mean something for a limiter without
   * a queue ({@code limit}, {@code inFlight}, {@code queued}, {@code admitted}, and its refusals at
   * the limit as {@code rejected.queueFull}, the answer Sluice gives with no queue place left), and
   * {@code "peer": true}.
   */
  String addTo(String statusJson) {
    try {
      ObjectNode status = (ObjectNode) JSON.readTree(statusJson);
      ObjectNode entry = ((ArrayNode) status.get("limiters"))
          .addObject()
          .put("name", id)
          .put("peer", true)
          .put("limit", limiter.getLimit())
          .put("inFlight", limiter.getInflight())
          .put("queued", 0)
          .put("admitted", admitted.get());
      entry.putObject("rejected").put("queueFull", rejected.get());
      return JSON.writeValueAsString(status);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the plugin's status is not JSON", e);
    }
  }

  /** The peer said no. */
  private static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejected() {
      super(null, null, false, false);
    }
  }
}
