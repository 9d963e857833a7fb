package dev.sluice.loadtest.engine;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The demo's gRPC door as a {@link Transport}: a transcode job ({@code POST /api/transcode?...}) is
 * sent as a {@code transcode.Transcoder/Transcode} call (its query as the JSON request, its headers
 * as metadata in lower case), every other request goes to the HTTP transport it wraps. The call's
 * outcome comes back as the {@link Reply} the HTTP door would have given, so retries, accounting and
 * the report are the same for both doors: {@code OK} 200, {@code RESOURCE_EXHAUSTED} 429 with the
 * {@code grpc-retry-pushback-ms} trailer as {@code Retry-After} (whole seconds, rounded up), {@code
 * DEADLINE_EXCEEDED} 504, {@code UNAVAILABLE} with a pushback 503 (the service stopping), {@code
 * INVALID_ARGUMENT} 400; {@code UNAVAILABLE} without one (no connection) fails the attempt as an
 * I/O error does, any other status is 500.
 */
public final class GrpcTransport implements AutoCloseable {

  /** The path of the HTTP endpoint whose jobs go through the gRPC door. */
  static final String TRANSCODE_PATH = "/api/transcode";

  static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  /** UTF-8 text, as the demo's door reads and writes its JSON. */
  static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** The demo's method, declared by hand: there is no generated code. */
  static final MethodDescriptor<String, String> TRANSCODE =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("transcode.Transcoder/Transcode")
          .setRequestMarshaller(TEXT)
          .setResponseMarshaller(TEXT)
          .build();

  private final ManagedChannel channel;
  private final ExecutorService executor;
  private final Duration timeout;

  /**
   * @param timeout each call's gRPC deadline (long: the service's queue timeout should answer first)
   */
  public GrpcTransport(String host, int port, Duration timeout) {
    this.timeout = timeout;
    // a cached pool: completions must never queue behind each other and distort latencies
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread thread = new Thread(r, "loadtest-grpc");
      thread.setDaemon(true);
      return thread;
    });
    this.channel = Grpc.newChannelBuilderForAddress(host, port, InsecureChannelCredentials.create())
        .executor(executor)
        .build();
  }

  /**
   * Waits until the channel is connected to the door: a service's door may open after its HTTP
   * {@code /health} answers (the demo starts it after its HTTP server), and a call sent before
   * would fail {@code UNAVAILABLE} as if the service were down.
   *
   * @throws IOException when the door did not accept a connection within {@code timeout}
   */
  public void awaitReady(Duration timeout) throws IOException, InterruptedException {
    awaitReady(channel, timeout);
  }

  static void awaitReady(ManagedChannel channel, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ConnectivityState state = channel.getState(true);
    while (state != ConnectivityState.READY) {
      if (System.nanoTime() - deadline >= 0) {
        throw new IOException("the gRPC door did not accept a connection within " + timeout
            + " (channel " + state + ")");
      }
      // after a refused connection the channel waits its reconnect backoff (a second and more)
      channel.resetConnectBackoff();
      Thread.sleep(50); // polling a process we do not control; real time
      state = channel.getState(true);
    }
  }

  /** Transcode jobs through the gRPC door, everything else through {@code http}. */
  public Transport routing(Transport http) {
    return request -> isTranscode(request) ? call(request) : http.send(request);
  }

  static boolean isTranscode(Arrival request) {
    String path = request.path();
    return request.method().equals("POST")
        && (path.equals(TRANSCODE_PATH) || path.startsWith(TRANSCODE_PATH + "?"));
  }

  private CompletableFuture<Reply> call(Arrival request) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(
        TRANSCODE,
        CallOptions.DEFAULT.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS));
    StringBuilder body = new StringBuilder();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(String message) {
            body.append(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (status.getCode() == Status.Code.UNAVAILABLE && trailers.get(PUSHBACK) == null) {
              // no answer from the service (refused connection, reset): an I/O failure
              reply.completeExceptionally(new IOException(
                  "gRPC " + status.getCode() + ": " + status.getDescription(), status.getCause()));
            } else {
              reply.complete(reply(status, trailers, body.toString()));
            }
          }
        },
        metadata(request.headers()));
    call.sendMessage(json(request.path()));
    call.halfClose();
    call.request(2);
    return reply;
  }

  /** The HTTP door's reply for a call that ended with {@code status}. */
  static Reply reply(Status status, Metadata trailers, String body) {
    Optional<String> retryAfter = Optional.ofNullable(trailers.get(PUSHBACK)).map(ms -> {
      try {
        return Long.toString(Math.max(1, (Long.parseLong(ms.trim()) + 999) / 1000));
      } catch (NumberFormatException e) {
        return "1";
      }
    });
    int code = switch (status.getCode()) {
      case OK -> 200;
      case INVALID_ARGUMENT -> 400;
      case RESOURCE_EXHAUSTED -> 429;
      case UNAVAILABLE -> 503;
      case DEADLINE_EXCEEDED -> 504;
      default -> 500;
    };
    String text = code == 200 ? body : problem(status);
    return new Reply(code, retryAfter, text);
  }

  /**
   * The HTTP door's problem+json in small: {@code reason} is the tag the description starts with
   * ({@code queue_full}, {@code key_cap}, ...), as the HTTP door's problem names it.
   */
  private static String problem(Status status) {
    String description = status.getDescription() == null ? "" : status.getDescription();
    int colon = description.indexOf(':');
    String reason =
        colon > 0 ? description.substring(0, colon) : status.getCode().name();
    return "{\"reason\":\"" + escape(reason) + "\",\"detail\":\"" + escape(description) + "\"}";
  }

  private static String escape(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The job's query as the door's JSON request: {@code ?cpuMillis=200} is {@code {"cpuMillis":200}}. */
  static String json(String path) {
    int q = path.indexOf('?');
    Map<String, String> fields = new TreeMap<>();
    if (q >= 0) {
      for (String pair : path.substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          fields.put(
              URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    StringBuilder json = new StringBuilder("{");
    fields.forEach((name, value) -> {
      if (json.length() > 1) {
        json.append(',');
      }
      json.append('"').append(escape(name)).append("\":");
      if (!value.isEmpty() && value.chars().allMatch(Character::isDigit) && value.length() < 10) {
        json.append(value);
      } else {
        json.append('"').append(escape(value)).append('"');
      }
    });
    return json.append('}').toString();
  }

  /** The request's headers as metadata, names in lower case as HTTP/2 sends them. */
  static Metadata metadata(Map<String, String> headers) {
    Metadata metadata = new Metadata();
    headers.forEach((name, value) -> metadata.put(
        Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER), value));
    return metadata;
  }

  @Override
  public void close() {
    close(channel, executor);
  }

  /** Shuts a channel down (waiting up to 5 s for its calls to end), then its executor. */
  static void close(ManagedChannel channel, ExecutorService executor) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    executor.shutdownNow();
  }
}
