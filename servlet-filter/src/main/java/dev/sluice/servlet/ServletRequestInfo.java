package dev.sluice.servlet;

import dev.sluice.config.SluiceSettings;
import dev.sluice.http.TrustedProxies;
import dev.sluice.request.RequestInfo;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/**
 * What the rules and the queue disciplines may know of a servlet request, read as the Javalin
 * plugin reads its requests: the client address behind trusted proxies only, the account from the
 * authentication's attribute before the header.
 */
final class ServletRequestInfo implements RequestInfo {

  private final HttpServletRequest req;
  private final String path;
  private final SluiceSettings settings;
  private final TrustedProxies proxies;
  private String clientIp; // resolved on first use: most requests match no per-IP rule

  ServletRequestInfo(
      HttpServletRequest req, String path, SluiceSettings settings, TrustedProxies proxies) {
    this.req = req;
    this.path = path;
    this.settings = settings;
    this.proxies = proxies;
  }

  @Override
  public String method() {
    return req.getMethod();
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String clientIp() {
    if (clientIp == null) {
      String peer = req.getRemoteAddr();
      clientIp = proxies.isEmpty()
          ? proxies.resolve(peer, java.util.Collections.emptyEnumeration())
          : proxies.resolve(peer, req.getHeaders(proxies.headerName()));
    }
    return clientIp;
  }

  /** The authentication's attribute wins over the header: a header is whatever the client sent. */
  @Override
  public Optional<String> account() {
    Optional<String> fromAuth = settings
        .accountAttribute()
        .map(req::getAttribute)
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
    return Optional.ofNullable(req.getHeader(name)).map(String::trim).filter(s -> !s.isEmpty());
  }

  @Override
  public Optional<Object> attribute(String name) {
    return Optional.ofNullable(req.getAttribute(name));
  }
}
