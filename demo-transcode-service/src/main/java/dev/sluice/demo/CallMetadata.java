package dev.sluice.demo;

import dev.sluice.request.RequestInfo;
import io.grpc.Metadata;
import java.util.Locale;
import java.util.Optional;

/**
 * A gRPC call as the transcode limiter's queue discipline reads it: the metadata stands for the
 * HTTP headers ({@code x-host-id} for {@code queue-key=header:X-Host-Id}, {@code x-priority} for
 * {@code priority-header=X-Priority}), names compared in lower case as HTTP/2 sends them; the
 * method is {@code POST} and the path the endpoint's, as the HTTP door's request would have.
 */
final class CallMetadata implements RequestInfo {

  private final Metadata headers;
  private final String peer;

  CallMetadata(Metadata headers, String peer) {
    this.headers = headers;
    this.peer = peer;
  }

  @Override
  public String method() {
    return "POST";
  }

  @Override
  public String path() {
    return "/api/transcode";
  }

  @Override
  public String clientIp() {
    return peer;
  }

  @Override
  public Optional<String> account() {
    return header("x-account-id");
  }

  @Override
  public Optional<String> device() {
    return Optional.empty();
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
