package dev.sluice.http;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceKeys;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;

/**
 * Resolves the client's address behind proxies. The forwarding header is believed only when the
 * peer is a trusted proxy (a CIDR of {@code sluice.trusted-proxies}), and only the one header the
 * proxies write ({@code sluice.forwarded-header}: {@code X-Forwarded-For} by default, or {@code
 * Forwarded}): any other forwarding header is the client's own text and is never read, so a client
 * cannot add a {@code Forwarded} header beside the proxy's {@code X-Forwarded-For} and pick its own
 * address. The hop list is walked from the right, skipping trusted proxies, and the first untrusted
 * hop is the client. Javalin's bundled RateLimitPlugin takes the leftmost X-Forwarded-For value from
 * anyone, which lets every client pick its own rate-limit key.
 *
 * <p>An IPv6 client is keyed by its network prefix ({@code sluice.ipv6-prefix}, /64 by default), as
 * {@code 2001:db8:1:2::/64}: one host usually owns a whole /64 and could otherwise rotate through
 * 2^64 addresses, each with its own quota.
 */
public final class TrustedProxies {

  // a forged header with thousands of hops must not cost more than a bounded walk
  private static final int MAX_HOPS = 64;

  /** The default prefix length by which IPv6 clients are keyed. */
  public static final int DEFAULT_IPV6_PREFIX = 64;

  /** Which header the trusted proxies write. */
  public enum Header {
    X_FORWARDED_FOR("X-Forwarded-For"),
    FORWARDED("Forwarded");

    final String headerName;

    Header(String headerName) {
      this.headerName = headerName;
    }
  }

  private final List<Cidr> cidrs;
  private final Header header;
  private final int ipv6Prefix;

  private TrustedProxies(List<Cidr> cidrs, Header header, int ipv6Prefix) {
    this.cidrs = List.copyOf(cidrs);
    this.header = header;
    this.ipv6Prefix = ipv6Prefix;
  }

  /** No trusted proxy: the client is the peer. */
  public static TrustedProxies none() {
    return new TrustedProxies(List.of(), Header.X_FORWARDED_FOR, DEFAULT_IPV6_PREFIX);
  }

  /** The same proxies, believing {@code header} and keying IPv6 clients by {@code prefix} bits. */
  public TrustedProxies with(Header newHeader, int prefix) {
    return new TrustedProxies(cidrs, newHeader, prefix);
  }

  /** The name of the one forwarding header read: the one the trusted proxies write. */
  public String headerName() {
    return header.headerName;
  }

  /**
   * The proxies of {@code sluice.trusted-proxies}, {@code sluice.forwarded-header} and {@code
   * sluice.ipv6-prefix} as resolved in {@code s}.
   *
   * @throws SluiceConfigException naming the whole list as written and where it came from
   */
  public static TrustedProxies of(SluiceSettings s, SluiceProperties p) {
    String key = SluiceKeys.TRUSTED_PROXIES.name();
    String list = s.get(SluiceKeys.TRUSTED_PROXIES);
    TrustedProxies proxies;
    try {
      proxies = parse(key, list);
    } catch (SluiceConfigException e) {
      // the whole list as written and where it came from, as for any other key
      throw new SluiceConfigException(key, list, p.source(key).orElse(null), e.problem());
    }
    Header header = s.get(SluiceKeys.FORWARDED_HEADER) == SluiceKeys.ForwardedHeader.FORWARDED
        ? Header.FORWARDED
        : Header.X_FORWARDED_FOR;
    return proxies.with(header, s.get(SluiceKeys.IPV6_PREFIX));
  }

  /** Parses a comma-separated CIDR list; a bare address means a single host. */
  public static TrustedProxies parse(String key, String list) {
    List<Cidr> cidrs = new ArrayList<>();
    if (list != null) {
      for (String part : list.split(",")) {
        String item = part.trim();
        if (!item.isEmpty()) {
          cidrs.add(Cidr.parse(key, item));
        }
      }
    }
    return new TrustedProxies(cidrs, Header.X_FORWARDED_FOR, DEFAULT_IPV6_PREFIX);
  }

  /** No proxy is trusted: the client is always the peer. */
  public boolean isEmpty() {
    return cidrs.isEmpty();
  }

  /** {@code address} lies in one of the trusted CIDRs. */
  public boolean isTrusted(InetAddress address) {
    for (Cidr cidr : cidrs) {
      if (cidr.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The client's key for a request from {@code remoteAddr} carrying {@code forwarded}, the values
   * of the configured forwarding header ({@link #headerName()}; no other header is ever read). An
   * IPv4 client is its address, an IPv6 client its prefix. Never throws: garbage in the header ends
   * the walk at the last address known to be good.
   */
  public String resolve(String remoteAddr, Enumeration<String> forwarded) {
    InetAddress peer = literal(unbracketed(remoteAddr));
    if (peer == null) {
      return remoteAddr == null ? "unknown" : remoteAddr;
    }
    if (cidrs.isEmpty() || !isTrusted(peer)) {
      return key(peer);
    }
    List<String> hops = header == Header.FORWARDED ? forwardedFor(forwarded) : split(forwarded);
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
    return key(client);
  }

  /** An IPv4 address as it is; an IPv6 address as its network prefix, e.g. {@code 2001:db8::/64}. */
  private String key(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (bytes.length == 4 || ipv6Prefix >= 128) {
      return address.getHostAddress();
    }
    int full = ipv6Prefix / 8;
    for (int i = full; i < bytes.length; i++) {
      bytes[i] = i == full ? (byte) (bytes[i] & (0xFF << (8 - ipv6Prefix % 8))) : 0;
    }
    try {
      return InetAddress.getByAddress(bytes).getHostAddress() + "/" + ipv6Prefix;
    } catch (UnknownHostException e) {
      return address.getHostAddress(); // cannot happen: 16 bytes are a valid address
    }
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

  /**
   * A peer address without the brackets Jetty writes around an IPv6 one ({@code [::1]}; Tomcat
   * does not): the literal parser takes none, so a bracketed peer would be keyed by its whole
   * text instead of its prefix, and a bracketed proxy never trusted.
   */
  static String unbracketed(String peer) {
    return peer != null
            && peer.length() > 2
            && peer.charAt(0) == '['
            && peer.charAt(peer.length() - 1) == ']'
        ? peer.substring(1, peer.length() - 1)
        : peer;
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
  public static InetAddress literal(String text) {
    if (text == null || text.isEmpty() || text.length() > 45) {
      return null;
    }
    if (text.indexOf(':') >= 0) {
      // ASCII only (Character.digit also takes other scripts' digits), and starting as the JDK
      // expects a literal to start: text starting with '.' or '%' it would send to the resolver
      if (!(isHexDigit(text.charAt(0)) || text.charAt(0) == ':')) {
        return null;
      }
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (!(isHexDigit(c) || c == ':' || c == '.' || c == '%')) {
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
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
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

  private static boolean isHexDigit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static InetAddress byName(String ipv6Literal) {
    try {
      return InetAddress.getByName(ipv6Literal); // a literal with ':' is parsed, never looked up
    } catch (UnknownHostException | SecurityException e) {
      return null;
    }
  }

  /** An address block. */
  @SuppressWarnings("ArrayRecordComponent") // private, and never compared, hashed or printed
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
