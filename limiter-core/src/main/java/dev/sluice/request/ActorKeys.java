package dev.sluice.request;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns a request into the key a rule counts it under, and bounds that key.
 *
 * <p>Choice, documented in the README: a request without the account, device, header or custom key a
 * rule counts by is not subject to that rule (an account rule limits identified callers; pair it
 * with an IP rule for anonymous ones). A request without a client IP is counted under one shared
 * {@code unknown} key rather than escaping IP rules. Header values come from clients, so a long or
 * odd value is hashed: keys stay short (memory, Redis keys) and nothing here throws on them.
 */
final class ActorKeys {

  static final int MAX_PLAIN_LENGTH = 64;
  static final String UNKNOWN_IP = "unknown";
  private static final char HASHED = '~';

  private ActorKeys() {}

  /**
   * The extractor of one actor; it answers a bounded key or {@code null} when the rule does not apply.
   */
  static Function<RequestInfo, String> extractor(
      Actor actor, Function<RequestInfo, Optional<String>> custom) {
    if (actor instanceof Actor.All) {
      return request -> "all";
    }
    if (actor instanceof Actor.Ip) {
      return request -> {
        String ip = request.clientIp();
        return ip == null || ip.isBlank() ? UNKNOWN_IP : bound(ip);
      };
    }
    if (actor instanceof Actor.Account) {
      return request -> present(request.account());
    }
    if (actor instanceof Actor.Device) {
      return request -> present(request.device());
    }
    if (actor instanceof Actor.Header header) {
      String name = header.name();
      return request -> present(request.header(name));
    }
    if (custom == null) {
      throw new IllegalArgumentException("no extractor for actor " + actor.id());
    }
    return request -> present(custom.apply(request));
  }

  private static String present(Optional<String> value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    String text = value.get();
    return text == null || text.isEmpty() ? null : bound(text);
  }

  /**
   * The value itself when short and plain printable ASCII; otherwise {@code ~} and 128 bits of its
   * SHA-256 (a plain value never starts with {@code ~}, so a client cannot send a value that collides
   * with another's hash).
   */
  static String bound(String value) {
    if (value.length() <= MAX_PLAIN_LENGTH && value.charAt(0) != HASHED && plain(value)) {
      return value;
    }
    byte[] digest = sha256().digest(value.getBytes(StandardCharsets.UTF_8));
    return HASHED
        + Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(java.util.Arrays.copyOf(digest, 16));
  }

  private static boolean plain(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
