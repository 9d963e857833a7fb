package dev.sluice.grpc;

import dev.sluice.request.RequestInfo;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Locale;
import java.util.Optional;

/**
 * What the queue discipline reads of a call: its metadata stands for the HTTP headers (a limiter's
 * {@code header:NAME}, {@code priority-header}, the account and device headers name metadata keys,
 * compared in lower case as HTTP/2 sends them), the peer's address for {@code ip}. The method is
 * {@code POST}, as every gRPC call is on the wire.
 */
final class CallInfo implements RequestInfo {

  private final String path;
  private final Metadata headers;
  private final ServerCall<?, ?> call;
  private final String accountHeader;
  private final String deviceHeader;

  CallInfo(
      String path,
      Metadata headers,
      ServerCall<?, ?> call,
      String accountHeader,
      String deviceHeader) {
    this.path = path;
    this.headers = headers;
    this.call = call;
    this.accountHeader = accountHeader;
    this.deviceHeader = deviceHeader;
  }

  @Override
  public String method() {
    return LimitingInterceptor.METHOD;
  }

  @Override
  public String path() {
    return path;
  }

  /** The peer's IP; a proxy in front is not looked through (no forwarding header is trusted). */
  @Override
  public String clientIp() {
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().getHostAddress();
    }
    return remote == null ? "unknown" : remote.toString();
  }

  @Override
  public Optional<String> account() {
    return header(accountHeader);
  }

  @Override
  public Optional<String> device() {
    return header(deviceHeader);
  }

  @Override
  public Optional<String> header(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    // a binary key holds bytes, not text; and Metadata.Key refuses names HTTP/2 would not carry
    if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX) || key.startsWith(":")) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(
          headers.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
