package dev.sluice.ratelimit;

import dev.sluice.rules.RulesFileException;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The service on a free real port with a virtual clock that reads nanoseconds since the Unix
 * epoch, and a grpc-java blocking client to it.
 */
final class RlsFixture implements AutoCloseable {

  /** 2027-01-01T00:00:00Z: the start of a second, a minute, an hour and a day alike. */
  static final Instant MIDNIGHT = Instant.parse("2027-01-01T00:00:00Z");

  final VirtualTime time;
  final RateLimitServer server;
  final ManagedChannel channel;
  final RateLimitServiceGrpc.RateLimitServiceBlockingStub client;

  RlsFixture(String yaml, Instant start) throws RulesFileException, IOException {
    this(DescriptorConfig.parse("test.yaml", yaml), start, null);
  }

  RlsFixture(DescriptorConfig config, Instant start, Counters counters) throws IOException {
    this(config, new VirtualTime(epochNanos(start)), counters);
  }

  RlsFixture(DescriptorConfig config, VirtualTime time, Counters counters) throws IOException {
    this.time = time;
    this.server = RateLimitServer.start(
        0, config, counters == null ? new LocalCounters(time) : counters, time);
    this.channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", server.port(), InsecureChannelCredentials.create())
        .build();
    this.client = RateLimitServiceGrpc.newBlockingStub(channel);
  }

  static long epochNanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }

  /** A descriptor of alternating keys and values: {@code descriptor("database", "users")}. */
  static RateLimitDescriptor descriptor(String... keysAndValues) {
    RateLimitDescriptor.Builder d = RateLimitDescriptor.newBuilder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      d.addEntries(RateLimitDescriptor.Entry.newBuilder()
          .setKey(keysAndValues[i])
          .setValue(keysAndValues[i + 1]));
    }
    return d.build();
  }

  static RateLimitRequest request(String domain, RateLimitDescriptor... descriptors) {
    RateLimitRequest.Builder r = RateLimitRequest.newBuilder().setDomain(domain);
    for (RateLimitDescriptor d : descriptors) {
      r.addDescriptors(d);
    }
    return r.build();
  }

  RateLimitResponse ask(RateLimitRequest request) {
    return client.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request);
  }

  /** Asks {@code times} times and returns the last answer. */
  RateLimitResponse ask(RateLimitRequest request, int times) {
    RateLimitResponse last = null;
    for (int i = 0; i < times; i++) {
      last = ask(request);
    }
    return last;
  }

  static Map<String, String> headers(RateLimitResponse response) {
    Map<String, String> out = new LinkedHashMap<>();
    for (HeaderValue h : response.getResponseHeadersToAddList()) {
      out.put(h.getKey(), h.getValue());
    }
    return out;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.close();
    }
  }
}
