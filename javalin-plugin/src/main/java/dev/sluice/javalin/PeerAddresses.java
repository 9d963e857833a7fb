package dev.sluice.javalin;

import jakarta.servlet.http.HttpServletRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/**
 * The text of a request's peer address, kept per address. Jetty's {@code getRemoteAddr()} formats a
 * new string from the connection's address on every call (two objects per request on a per-IP rule);
 * the address object itself is the connection's, so looking its text up allocates nothing. Bounded:
 * past {@link #MAX} addresses the table starts afresh, so a flood of peers costs what it cost before.
 */
final class PeerAddresses {

  static final int MAX = 4096;

  private final Map<InetAddress, String> texts = new ConcurrentHashMap<>();

  /** {@code request.getRemoteAddr()}, from the table when the address was seen before. */
  String of(HttpServletRequest request) {
    ServletContextRequest core = ServletContextRequest.getServletContextRequest(request);
    SocketAddress remote =
        core == null ? null : core.getConnectionMetaData().getRemoteSocketAddress();
    if (!(remote instanceof InetSocketAddress socket) || socket.getAddress() == null) {
      return request.getRemoteAddr();
    }
    return of(socket.getAddress(), request);
  }

  /** The text of {@code address}: from the table, else {@code request.getRemoteAddr()}. */
  String of(InetAddress address, HttpServletRequest request) {
    String text = texts.get(address);
    if (text == null) {
      text = request.getRemoteAddr();
      if (text == null) {
        return null;
      }
      if (texts.size() >= MAX) {
        texts.clear();
      }
      texts.put(address, text);
    }
    return text;
  }
}
