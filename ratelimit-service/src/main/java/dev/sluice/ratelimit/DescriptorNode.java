package dev.sluice.ratelimit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a domain's descriptor tree: the descriptors below it by their composite key ({@code
 * key} alone, or {@code key_value}), the wildcard ones among them in file order, and this level's
 * own limit (null for none). The domain itself is the root, with no limit.
 */
final class DescriptorNode {

  /** A composite key with {@code *} in it, split on the stars once, when the file is read. */
  record Wildcard(String compositeKey, List<String> parts) {}

  private final Map<String, DescriptorNode> children = new LinkedHashMap<>();
  private final List<Wildcard> wildcards = new ArrayList<>();
  private final DescriptorLimit limit;
  private final boolean shareThreshold;
  private final String wildcardValue;

  DescriptorNode(DescriptorLimit limit, boolean shareThreshold, String wildcardValue) {
    this.limit = limit;
    this.shareThreshold = shareThreshold;
    this.wildcardValue = wildcardValue;
  }

  static DescriptorNode root() {
    return new DescriptorNode(null, false, null);
  }

  /** Adds a child; false when its composite key is taken. */
  boolean add(String compositeKey, DescriptorNode child) {
    if (children.putIfAbsent(compositeKey, child) != null) {
      return false;
    }
    if (compositeKey.indexOf('*') >= 0) {
      wildcards.add(new Wildcard(compositeKey, List.of(compositeKey.split("\\*", -1))));
    }
    return true;
  }

  DescriptorNode child(String compositeKey) {
    return children.get(compositeKey);
  }

  Map<String, DescriptorNode> children() {
    return Collections.unmodifiableMap(children);
  }

  List<Wildcard> wildcards() {
    return Collections.unmodifiableList(wildcards);
  }

  DescriptorLimit limit() {
    return limit;
  }

  /** {@code share_threshold: true}: every value its wildcard matches counts on one counter. */
  boolean shareThreshold() {
    return shareThreshold;
  }

  /** The value with its stars ({@code files*}) of a wildcard descriptor, else null. */
  String wildcardValue() {
    return wildcardValue;
  }

  /**
   * Whether {@code value} matches a pattern split on its stars, each star standing for any run of
   * characters (none too): envoy/ratelimit's {@code wildcardMatch}, step for step.
   */
  static boolean matches(List<String> parts, String value) {
    if (parts.size() == 1) {
      return parts.get(0).equals(value);
    }
    String first = parts.get(0);
    String last = parts.get(parts.size() - 1);
    if (!value.startsWith(first) || !value.endsWith(last)) {
      return false;
    }
    int fixed = 0;
    for (String part : parts) {
      fixed += part.length();
    }
    if (value.length() < fixed) {
      return false;
    }
    String remaining = value.substring(first.length(), value.length() - last.length());
    for (String part : parts.subList(1, parts.size() - 1)) {
      int at = remaining.indexOf(part);
      if (at < 0) {
        return false;
      }
      remaining = remaining.substring(at + part.length());
    }
    return true;
  }
}
