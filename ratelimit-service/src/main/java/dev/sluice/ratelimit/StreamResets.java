package dev.sluice.ratelimit;

import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps answers that nobody waits for any more out of the log. grpc-java's Netty transport logs a
 * warning with its whole stack trace ("Stream Error ... Stream closed before write could take
 * place") for each answer whose caller reset the call's stream while the answer was on its way.
 * That is what Envoy does to every call its rate-limit {@code timeout} gave up on (20 ms by
 * default): a service that falls behind for a moment would log one stack trace per late answer,
 * tens of thousands a minute, and writing them takes the CPU it lacked. These resets are counted
 * instead: the first is logged as one warning line saying what it means, the rest at {@code FINE}.
 * Every other stream error is logged as grpc-java logs it.
 */
final class StreamResets implements Filter {

  /** The logger of grpc-java's Netty server handler (the shaded transport this service runs on). */
  static final String TRANSPORT_LOGGER = "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler";

  private static final Logger LOG = Logger.getLogger(StreamResets.class.getName());

  // a logger is held weakly by java.util.logging: this keeps the one carrying the filter
  private static final Logger TRANSPORT = Logger.getLogger(TRANSPORT_LOGGER);
  private static final StreamResets INSTALLED = new StreamResets();

  private final AtomicLong resets = new AtomicLong();

  /** Filters the transport's log from now on (once per JVM; later calls do nothing). */
  static StreamResets install() {
    synchronized (TRANSPORT) {
      if (TRANSPORT.getFilter() != INSTALLED) {
        TRANSPORT.setFilter(INSTALLED);
      }
    }
    return INSTALLED;
  }

  /** Answers written to a stream its caller had reset, since the JVM started. */
  long resets() {
    return resets.get();
  }

  @Override
  public boolean isLoggable(LogRecord record) {
    if (!isReset(record.getThrown())) {
      return true;
    }
    long n = resets.incrementAndGet();
    if (n == 1) {
      LOG.warning("a caller reset its call before the answer was written (the usual cause: its"
          + " deadline passed, e.g. Envoy's rate-limit timeout); such answers are counted and"
          + " logged at FINE from now on, not as stream errors");
    } else if (LOG.isLoggable(Level.FINE)) {
      LOG.fine("answers written to streams their callers had reset: " + n);
    }
    return false;
  }

  /** A stream closed by the peer before a write could take place. */
  static boolean isReset(Throwable thrown) {
    return thrown instanceof Http2Exception.StreamException stream
        && stream.error() == Http2Error.STREAM_CLOSED;
  }
}
