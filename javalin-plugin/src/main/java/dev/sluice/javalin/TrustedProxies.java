package dev.sluice.javalin;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;

/**
 * Resolves the client's address behind proxies. {@code X-Forwarded-For} and {@code Forwarded} are
 * believed only when the peer is a trusted proxy (a CIDR of {@code sluice.trusted-proxies}); the hop
 * list is then walked from the right, skipping trusted proxies, and the first untrusted hop is the
 * client. Javalin's bundled RateLimitPlugin takes the leftmost X-Forwarded-For value from anyone,
 * which lets every client pick its own rate-limit key.
 */
final class TrustedProxies {

  // a forged header with thousands of hops must not cost more than a bounded walk
  private static final int MAX_HOPS = 64;

  private final List<Cidr> cidrs;

  private TrustedProxies(List<Cidr> cidrs) {
    this.cidrs = List.copyOf(cidrs);
  }

  static TrustedProxies none() {
    return new TrustedProxies(List.of());
  }

  /** Parses a comma-separated CIDR list; a bare address means a single host. */
  static TrustedProxies parse(String key, String list) {
    List<Cidr> cidrs = new ArrayList<>();
    if (list != null) {
      for (String part : list.split(",")) {
        String item = part.trim();
        if (!item.isEmpty()) {
          cidrs.add(Cidr.parse(key, item));
        }
      }
    }
    return new TrustedProxies(cidrs);
  }

  boolean isEmpty() {
    return cidrs.isEmpty();
  }

  boolean isTrusted(InetAddress address) {
    for (Cidr cidr : cidrs) {
      if (cidr.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The client address for a request from {@code remoteAddr} carrying the given header values
   * ({@code Forwarded} wins over {@code X-Forwarded-For} when both are present). Never throws:
   * garbage in a header ends the walk at the last address known to be good.
   */
  String resolve(String remoteAddr, Enumeration<String> forwarded, Enumeration<String> xForwardedFor) {
    InetAddress peer = literal(remoteAddr);
    if (peer == null) {
      return remoteAddr == null ? "unknown" : remoteAddr;
    }
    if (cidrs.isEmpty() || !isTrusted(peer)) {
      return peer.getHostAddress();
    }
    List<String> hops = forwardedFor(forwarded);
    if (hops.isEmpty()) {
      hops = split(xForwardedFor);
    }
    InetAddress client = peer;
    int walked = 0;
    for (int i = hops.size() - 1; i >= 0 && walked < MAX_HOPS; i--, walked++) {
      InetAddress hop = literal(stripPort(hops.get(i)));
      if (hop == null) {
        break;
      }
      client = hop;
      if (!isTrusted(hop)) {
        break;
      }
    }
    return client.getHostAddress();
  }

  private static List<String> split(Enumeration<String> values) {
    List<String> hops = new ArrayList<>();
    while (values != null && values.hasMoreElements()) {
      for (String part : values.nextElement().split(",")) {
        if (!part.isBlank()) {
          hops.add(part.trim());
        }
      }
    }
    return hops;
  }

  /** The {@code for=} values of RFC 7239 {@code Forwarded} elements, in order. */
  private static List<String> forwardedFor(Enumeration<String> values) {
    List<String> hops = new ArrayList<>();
    for (String element : split(values)) {
      for (String pair : element.split(";")) {
        String p = pair.trim();
        if (p.length() > 4 && p.substring(0, 4).toLowerCase(Locale.ROOT).equals("for=")) {
          String v = p.substring(4).trim();
          if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
          }
          hops.add(v);
        }
      }
    }
    return hops;
  }

  /** {@code [2001:db8::1]:4711} -> {@code 2001:db8::1}; {@code 192.0.2.1:80} -> {@code 192.0.2.1}. */
  private static String stripPort(String hop) {
    if (hop.startsWith("[")) {
      int end = hop.indexOf(']');
      return end > 0 ? hop.substring(1, end) : hop;
    }
    int colon = hop.indexOf(':');
    if (colon > 0 && colon == hop.lastIndexOf(':')) {
      return hop.substring(0, colon);
    }
    return hop;
  }

  /**
   * Parses an IP literal without ever asking DNS (InetAddress.getByName would resolve a host name
   * from a header: a forged header must not trigger lookups). Null when not a literal.
   */
  static InetAddress literal(String text) {
    if (text == null || text.isEmpty() || text.length() > 45) {
      return null;
    }
    if (text.indexOf(':') >= 0) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (!(Character.digit(c, 16) >= 0 || c == ':' || c == '.' || c == '%')) {
          return null;
        }
      }
      return byName(text);
    }
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] bytes = new byte[4];
    for (int i = 0; i < 4; i++) {
      String p = parts[i];
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
        return null;
      }
      int v = Integer.parseInt(p);
      if (v > 255) {
        return null;
      }
      bytes[i] = (byte) v;
    }
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private static InetAddress byName(String ipv6Literal) {
    try {
      return InetAddress.getByName(ipv6Literal); // a literal with ':' is parsed, never looked up
    } catch (UnknownHostException | SecurityException e) {
      return null;
    }
  }

  /** An address block. */
  private record Cidr(byte[] network, int prefix) {

    static Cidr parse(String key, String text) {
      int slash = text.indexOf('/');
      InetAddress address = literal(slash < 0 ? text : text.substring(0, slash));
      if (address == null) {
        throw new SluiceConfigException(key, text, "not an IP address or CIDR block");
      }
      int max = address.getAddress().length * 8;
      int prefix = max;
      if (slash >= 0) {
        try {
          prefix = Integer.parseInt(text.substring(slash + 1).trim());
        } catch (NumberFormatException e) {
          prefix = -1;
        }
        if (prefix < 0 || prefix > max) {
          throw new SluiceConfigException(key, text, "prefix length must be 0.." + max);
        }
      }
      return new Cidr(address.getAddress(), prefix);
    }

    boolean contains(InetAddress address) {
      byte[] bytes = address.getAddress();
      if (bytes.length != network.length) {
        return false;
      }
      int full = prefix / 8;
      for (int i = 0; i < full; i++) {
        if (bytes[i] != network[i]) {
          return false;
        }
      }
      int rest = prefix % 8;
      if (rest == 0) {
        return true;
      }
      int mask = 0xFF << (8 - rest);
      return (bytes[full] & mask) == (network[full] & mask);
    }
  }
}
