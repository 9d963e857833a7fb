package dev.sluice.javalin;

import dev.sluice.rules.RequestInfo;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * What the rules engine may know of a Javalin request. Header values are handed over as they are
 * (the engine bounds long keys); nothing here throws on a strange header.
 */
final class ContextRequestInfo implements RequestInfo {

  private final Context ctx;
  private final String path;
  private final Settings settings;
  // resolved on first use: most requests match no per-IP rule, and parsing the peer address and
  // the forwarding headers was the plugin's largest per-request cost on a trivial endpoint
  private String clientIp;

  ContextRequestInfo(Context ctx, String path, Settings settings) {
    this.ctx = ctx;
    this.path = path;
    this.settings = settings;
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
      TrustedProxies proxies = settings.trustedProxies();
      // only the header the trusted proxies write: any other is the client's own text
      ip = proxies.resolve(ctx.req().getRemoteAddr(), ctx.req().getHeaders(proxies.headerName()));
      clientIp = ip;
    }
    return ip;
  }

  /** The auth handler's attribute wins over the header: a header is whatever the client sent. */
  @Override
  public Optional<String> account() {
    Optional<String> fromAuth = settings.accountAttribute()
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
