package dev.sluice.javalin;

import dev.sluice.request.RequestInfo;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A request as the plugin's parts see it, without an HTTP server: {@code GET} on {@code path} from
 * {@code clientIp}, no account or device, and these headers (looked up case-insensitively).
 */
record TestRequest(String clientIp, String path, Map<String, String> headers)
    implements RequestInfo {

  /** {@code /api/transcode} from 127.0.0.1 with no headers. */
  static final TestRequest NONE = new TestRequest("127.0.0.1", "/api/transcode", Map.of());

  /** {@code /api/transcode} from 10.0.0.1 with these headers (names in lower case). */
  static TestRequest withHeaders(Map<String, String> headers) {
    return at("/api/transcode", headers);
  }

  /** {@code path} from 10.0.0.1 with these headers (names in lower case). */
  static TestRequest at(String path, Map<String, String> headers) {
    return new TestRequest("10.0.0.1", path, headers);
  }

  @Override
  public String method() {
    return "GET";
  }

  @Override
  public Optional<String> account() {
    return Optional.empty();
  }

  @Override
  public Optional<String> device() {
    return Optional.empty();
  }

  @Override
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }
}
