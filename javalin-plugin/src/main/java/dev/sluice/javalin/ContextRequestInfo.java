package dev.sluice.javalin;

import dev.sluice.http.TrustedProxies;
import dev.sluice.request.RequestInfo;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * What the rules engine may know of a Javalin request. Header values are handed over as they are
 * (the engine bounds long keys); nothing here throws on a strange header.
 *
 * <p>The before-handler keeps one per platform thread for the rules' decision made on the spot
 * (see {@link #of}), which reads it only while it decides; one that is handed to a decision of the
 * shared store, which ends on another thread, is a new one of its own.
 */
final class ContextRequestInfo implements RequestInfo {

  private Context ctx;
  private String path;
  private final Settings settings;
  private final PeerAddresses peers; // null: ask Jetty each time
  // resolved on first use: most requests match no per-IP rule, and parsing the peer address and
  // the forwarding headers was the plugin's largest per-request cost on a trivial endpoint
  private String clientIp;

  ContextRequestInfo(Context ctx, String path, Settings settings) {
    this(ctx, path, settings, null);
  }

  ContextRequestInfo(Context ctx, String path, Settings settings, PeerAddresses peers) {
    this.ctx = ctx;
    this.path = path;
    this.settings = settings;
    this.peers = peers;
  }

  /**
   * This info, pointed at another request: for the per-thread one, which a thread's requests take
   * in turn. Forgets the previous request's client address.
   */
  ContextRequestInfo of(Context request, String requestPath) {
    this.ctx = request;
    this.path = requestPath;
    this.clientIp = null;
    return this;
  }

  /** Lets go of the request, so a thread's idle info keeps no finished request reachable. */
  void clear() {
    of(null, null);
  }

  @Override
  public String method() {
    return ctx.method().name();
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String clientIp() {
    String ip = clientIp;
    if (ip == null) {
      String peer = peers == null ? ctx.req().getRemoteAddr() : peers.of(ctx.req());
      TrustedProxies proxies = settings.trustedProxies();
      // no trusted proxy: the client is the peer, and Jetty's peer address is already a literal;
      // a plain dotted quad needs no parsing (TrustedProxies' general parser showed at 2.5% of a
      // profile of an IP rule on a trivial endpoint). Else only the header the trusted proxies
      // write: any other is the client's own text
      ip = proxies.isEmpty() && isDottedQuad(peer)
          ? peer
          : proxies.resolve(peer, ctx.req().getHeaders(proxies.headerName()));
      clientIp = ip;
    }
    return ip;
  }

  /** {@code 0-255} four times, dot-separated, without leading zeros: the canonical IPv4 form. */
  static boolean isDottedQuad(String s) {
    if (s == null) {
      return false;
    }
    int parts = 0;
    int i = 0;
    int n = s.length();
    while (i <= n && parts < 4) {
      int start = i;
      int value = 0;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9' && i - start < 3) {
        value = value * 10 + (s.charAt(i) - '0');
        i++;
      }
      int digits = i - start;
      if (digits == 0 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
        return false;
      }
      parts++;
      if (i == n) {
        return parts == 4;
      }
      if (s.charAt(i) != '.') {
        return false;
      }
      i++;
    }
    return false;
  }

  /** The auth handler's attribute wins over the header: a header is whatever the client sent. */
  @Override
  public Optional<String> account() {
    Optional<String> fromAuth = settings
        .accountAttribute()
        .map(name -> ctx.attribute(name))
        .map(String::valueOf)
        .filter(s -> !s.isBlank());
    return fromAuth.isPresent() ? fromAuth : header(settings.accountHeader());
  }

  @Override
  public Optional<String> device() {
    return header(settings.deviceHeader());
  }

  @Override
  public Optional<String> header(String name) {
    return Optional.ofNullable(ctx.header(name)).map(String::trim).filter(s -> !s.isEmpty());
  }

  @Override
  public Optional<Object> attribute(String name) {
    return Optional.ofNullable(ctx.attribute(name));
  }
}
