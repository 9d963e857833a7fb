package dev.sluice.rate;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Validates a key and bounds its stored length: a key from a header can be arbitrarily long, and
 * storing it verbatim would let one client spend the map's memory.
 */
final class BoundedKey {

  /**
   * Marks a digest. Keys that already start with it are hashed too, so a literal key can never
   * collide with another key's digest.
   */
  static final String DIGEST_PREFIX = "\u0000sha256:";

  private BoundedKey() {}

  /** The key to store for {@code key}: itself, or a 51-char digest when long or marker-prefixed. */
  static String of(String key) {
    check(key);
    if (key.length() > RateLimiter.MAX_KEY_LENGTH || key.startsWith(DIGEST_PREFIX)) {
      return DIGEST_PREFIX + digest(key);
    }
    return key;
  }

  /** Refuses a null or empty key. */
  static void check(String key) {
    if (key == null) {
      throw new IllegalArgumentException("rate limit key must not be null");
    }
    if (key.isEmpty()) {
      throw new IllegalArgumentException("rate limit key must not be empty but was ''");
    }
  }

  /** The key as it may appear in an error message: at most 64 chars. */
  static String quoted(String key) {
    return key.length() <= 64
        ? "'" + key + "'"
        : "'" + key.substring(0, 64) + "...' (" + key.length() + " chars)";
  }

  private static String digest(String key) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM must provide SHA-256", e);
    }
  }
}
