package dev.sluice.javalin;

import dev.sluice.config.SluiceKeys;
import dev.sluice.time.NanoClock;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Reads and drops the body of a request answered without reading it, so the answer reaches the
 * client. Jetty, finding unread content at the end of an exchange that it will not block for,
 * closes the connection; a socket closed with unread bytes sends a TCP reset, which can overtake
 * the answer already on its way, and the client of an upload sees "connection reset" or "received
 * no bytes" instead of the 429 (jetty/jetty.project#2867). Tomcat swallows up to 2 MB for the same
 * reason ({@code maxSwallowSize}).
 *
 * <p>Bounded twice: a body declared larger than {@code maxBytes} is not read at all (a chunked one
 * is read up to it), and reading stops after {@code maxTime}, checked between reads. What is left
 * unread then is closed on, as before.
 */
final class UnreadBody {

  static final long DEFAULT_MAX_BYTES = SluiceKeys.DISCARD_BODY.defaultValue();

  static final Duration DEFAULT_MAX_TIME = SluiceKeys.DISCARD_TIME.defaultValue();

  private static final int BUFFER = 64 * 1024;

  private final long maxBytes;
  private final long maxNanos;
  private final NanoClock clock;

  UnreadBody(long maxBytes, Duration maxTime, NanoClock clock) {
    this.maxBytes = maxBytes;
    this.maxNanos = maxTime.toNanos();
    this.clock = clock;
  }

  /**
   * Reads what is left of the request's body and drops it, within the bounds. Returns whether
   * nothing is left unread: true for a request without a body, or one read to its end.
   */
  boolean discard(HttpServletRequest request) {
    long length = request.getContentLengthLong();
    if (length == 0 || (length < 0 && !chunked(request))) {
      return true; // HTTP/1.1: without Content-Length or chunked coding a request has no body
    }
    if (maxBytes == 0 || length > maxBytes || expectsContinue(request)) {
      return false;
    }
    long deadline = clock.nanoTime() + maxNanos;
    long total = 0;
    byte[] buffer = new byte[BUFFER];
    try {
      InputStream in = request.getInputStream();
      // at most one byte past the bound: enough to tell a chunked body over it
      while (total <= maxBytes && clock.nanoTime() - deadline < 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, maxBytes + 1 - total));
        if (n < 0) {
          return true;
        }
        total += n;
      }
      return false;
    } catch (IOException gone) {
      return false; // the client went away: nothing left to protect the answer from
    } catch (IllegalStateException readerInUse) {
      return false; // the application reads the body through getReader(): leave it to it
    }
  }

  private static boolean chunked(HttpServletRequest request) {
    String coding = request.getHeader("Transfer-Encoding");
    return coding != null && coding.toLowerCase(Locale.ROOT).contains("chunked");
  }

  /**
   * A client that sent {@code Expect: 100-continue} waits for leave to send its body: reading would
   * make Jetty give it (the 100 goes out on the first read) and invite an upload only to drop it,
   * while the refusal alone tells the client not to send.
   */
  private static boolean expectsContinue(HttpServletRequest request) {
    String expect = request.getHeader("Expect");
    return expect != null && expect.trim().equalsIgnoreCase("100-continue");
  }
}
