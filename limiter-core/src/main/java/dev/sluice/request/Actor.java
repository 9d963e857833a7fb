package dev.sluice.request;

import java.util.Locale;
import java.util.Objects;

/**
 * Who a rule counts: everyone together, or each IP, account, device, header value or custom key
 * separately. In rules files: {@code all | ip | account | device | header:NAME | custom:NAME}.
 *
 * <p>A custom actor names an extractor registered in code with {@link
 * dev.sluice.rules.RateRules.Builder#customActor}; the file only refers to it.
 */
public sealed interface Actor {

  /** The allowed forms, for error messages. */
  String ALLOWED = "all, ip, account, device, header:<name>, custom:<name>";

  /** The form used in rules files, e.g. {@code header:x-api-key}. */
  String id();

  /**
   * Parses an actor as written in a rules file (keywords case-insensitive; header names are
   * case-insensitive and kept in lower case).
   *
   * @throws IllegalArgumentException naming the value and listing the allowed forms
   */
  static Actor parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("actor must not be empty; allowed: " + ALLOWED);
    }
    String text = value.trim();
    int colon = text.indexOf(':');
    String kind = (colon < 0 ? text : text.substring(0, colon)).toLowerCase(Locale.ROOT);
    String name = colon < 0 ? null : text.substring(colon + 1).trim();
    switch (kind) {
      case "all", "ip", "account", "device" -> {
        if (name != null) {
          break;
        }
        return kind.equals("all")
            ? All.INSTANCE
            : kind.equals("ip")
                ? Ip.INSTANCE
                : kind.equals("account") ? Account.INSTANCE : Device.INSTANCE;
      }
      case "header", "custom" -> {
        if (name == null || name.isEmpty()) {
          break;
        }
        try {
          return kind.equals("header") ? new Header(name) : new Custom(name);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("actor '" + value + "': " + e.getMessage(), e);
        }
      }
      default -> {}
    }
    throw new IllegalArgumentException("unknown actor '" + value + "'; allowed: " + ALLOWED);
  }

  /**
   * The key {@code actor} gives a request, bounded as a rule's key is (a long or odd value is
   * hashed), or null when the request has none (no account, device or header); a request without a
   * client IP gets {@code "unknown"}. For the HTTP layer's other users of actors, such as a fair
   * queue's key.
   *
   * @throws IllegalArgumentException for a custom actor: its extractor lives in the rule engine
   */
  static java.util.function.Function<RequestInfo, String> keyOf(Actor actor) {
    return ActorKeys.extractor(actor, null);
  }

  /**
   * The extractor of {@code actor}'s key, bounded (long or odd values are hashed); it answers null
   * when the request has no such key. {@code custom} resolves a {@link Custom} actor (null: none).
   */
  static java.util.function.Function<RequestInfo, String> keyOf(
      Actor actor, java.util.function.Function<RequestInfo, java.util.Optional<String>> custom) {
    return ActorKeys.extractor(actor, custom);
  }

  /** Every request counts against one shared key. */
  enum All implements Actor {
    INSTANCE;

    @Override
    public String id() {
      return "all";
    }
  }

  /** Counted per client IP, as resolved by the HTTP layer (trusted proxies). */
  enum Ip implements Actor {
    INSTANCE;

    @Override
    public String id() {
      return "ip";
    }
  }

  /** Counted per account; a request without an account is not subject to the rule. */
  enum Account implements Actor {
    INSTANCE;

    @Override
    public String id() {
      return "account";
    }
  }

  /** Counted per device; a request without a device is not subject to the rule. */
  enum Device implements Actor {
    INSTANCE;

    @Override
    public String id() {
      return "device";
    }
  }

  /**
   * Counted per value of a request header; a request without the header is not subject to the rule.
   *
   * @param name the header name, an HTTP token, stored in lower case
   */
  record Header(String name) implements Actor {
    public Header {
      name = token(name, "header").toLowerCase(Locale.ROOT);
    }

    @Override
    public String id() {
      return "header:" + name;
    }
  }

  /**
   * Counted per key from an extractor registered in code under {@code name}; when the extractor
   * returns empty, the request is not subject to the rule.
   */
  record Custom(String name) implements Actor {
    public Custom {
      name = token(name, "custom actor");
    }

    @Override
    public String id() {
      return "custom:" + name;
    }
  }

  private static String token(String name, String what) {
    Objects.requireNonNull(name, what + " name");
    if (name.isEmpty() || name.length() > 128) {
      throw new IllegalArgumentException(
          what + " name must have 1 to 128 characters but was '" + name + "'");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean tokenChar = (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tokenChar) {
        throw new IllegalArgumentException(
            what + " name must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~) but was '" + name
                + "'");
      }
    }
    return name;
  }
}
