package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * {@link UnreadBody} over requests as a container hands them over, for what a real HTTP/1.1
 * exchange through Jetty does not show: a request of unknown length without chunked coding (an
 * HTTP/2 one without a body), a body read in small pieces, a reader that fails.
 */
class UnreadBodyTest {

  private final VirtualTime time = new VirtualTime();

  /** A body of {@code size} bytes (endless when negative), handed out at most {@code piece} a read. */
  private static class Body extends ServletInputStream {
    private final long size;
    private final int piece;
    long read;

    Body(long size, int piece) {
      this.size = size;
      this.piece = piece;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      long left = size < 0 ? Long.MAX_VALUE : size - read;
      if (left == 0) {
        return -1;
      }
      int n = (int) Math.min(Math.min(len, piece), left);
      read += n;
      return n;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0];
    }

    @Override
    public boolean isFinished() {
      return size >= 0 && read == size;
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setReadListener(ReadListener listener) {
      throw new UnsupportedOperationException();
    }
  }

  private static HttpServletRequest request(
      long contentLength, Map<String, String> headers, Callable<ServletInputStream> body) {
    return (HttpServletRequest) Proxy.newProxyInstance(
        UnreadBodyTest.class.getClassLoader(),
        new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getContentLengthLong" -> contentLength;
          case "getHeader" -> headers.get((String) args[0]);
          case "getInputStream" -> body.call();
          case "toString" -> "a request";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private UnreadBody bounded(long maxBytes) {
    return new UnreadBody(maxBytes, Duration.ofSeconds(5), time);
  }

  @Test
  void withoutALengthOrChunkedCodingThereIsNoBodyEvenWithNothingToSpend() {
    HttpServletRequest noBody = request(-1, Map.of(), () -> {
      throw new AssertionError("a request without a body is not read");
    });
    assertThat(bounded(0).discard(noBody)).isTrue();
    assertThat(bounded(1000).discard(noBody)).isTrue();
  }

  @Test
  void aChunkedBodyIsReadToItsEndInAnyCase() {
    Body body = new Body(100, 7);
    assertThat(
            bounded(1000).discard(request(-1, Map.of("Transfer-Encoding", "Chunked"), () -> body)))
        .isTrue();
    assertThat(body.read).isEqualTo(100);
  }

  @Test
  void aChunkedBodyIsReadAtMostOneBytePastTheBound() {
    Body endless = new Body(-1, 3);
    assertThat(
            bounded(10).discard(request(-1, Map.of("Transfer-Encoding", "chunked"), () -> endless)))
        .isFalse();
    assertThat(endless.read).isEqualTo(11);
  }

  @Test
  void aClientWaitingForLeaveToSendIsNotInvitedToUpload() {
    Body body = new Body(5, 64);
    assertThat(bounded(1000).discard(request(5, Map.of("Expect", " 100-Continue "), () -> body)))
        .isFalse();
    assertThat(body.read).as("never read: reading would send the 100").isZero();
    assertThat(bounded(1000).discard(request(5, Map.of("Expect", "something-else"), () -> body)))
        .isTrue();
    assertThat(body.read).isEqualTo(5);
  }

  @Test
  void aBodyThatCannotBeReadIsLeftUnread() {
    HttpServletRequest readerInUse = request(5, Map.of(), () -> {
      throw new IllegalStateException("getReader() was called");
    });
    HttpServletRequest clientGone = request(5, Map.of(), () -> new Body(5, 1) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        throw new IOException("connection reset");
      }
    });
    assertThat(bounded(1000).discard(readerInUse)).isFalse();
    assertThat(bounded(1000).discard(clientGone)).isFalse();
  }
}
