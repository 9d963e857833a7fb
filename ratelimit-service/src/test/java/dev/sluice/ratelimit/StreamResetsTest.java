package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A stream its caller reset before the answer was written (Envoy's rate-limit timeout) is counted,
 * not logged by grpc-java's transport as a stream error with its stack trace; every other record of
 * the transport is logged as before.
 */
class StreamResetsTest {

  private final Logger transport = Logger.getLogger(StreamResets.TRANSPORT_LOGGER);

  @Test
  void theServerFiltersItsTransportsLogFromTheStart() throws Exception {
    transport.setFilter(null);
    VirtualTime time = new VirtualTime();
    try (RateLimitServer server = RateLimitServer.start(
        0, DescriptorConfig.parse("test.yaml", "domain: api\n"), new LocalCounters(time), time)) {
      assertThat(server.port()).isPositive();
      assertThat(transport.getFilter()).isInstanceOf(StreamResets.class);
    }
  }

  @Test
  void onlyStreamsClosedByTheirCallerAreKeptOutOfTheLog() {
    StreamResets resets = StreamResets.install();
    long before = resets.resets();

    assertThat(resets.isLoggable(streamError(Http2Error.STREAM_CLOSED))).isFalse();
    assertThat(resets.isLoggable(streamError(Http2Error.STREAM_CLOSED))).isFalse();
    assertThat(resets.isLoggable(streamError(Http2Error.PROTOCOL_ERROR))).isTrue();
    assertThat(resets.isLoggable(new LogRecord(Level.WARNING, "Stream Error"))).isTrue();
    LogRecord other = new LogRecord(Level.WARNING, "Connection Error");
    other.setThrown(new IllegalStateException("boom"));
    assertThat(resets.isLoggable(other)).isTrue();

    assertThat(resets.resets() - before).isEqualTo(2);
    assertThat(transport.getFilter()).isSameAs(resets);
    assertThat(StreamResets.install()).as("installed once").isSameAs(resets);
  }

  private static LogRecord streamError(Http2Error error) {
    LogRecord record = new LogRecord(Level.WARNING, "Stream Error");
    record.setThrown(
        Http2Exception.streamError(3, error, "Stream closed before write could take place"));
    return record;
  }
}
