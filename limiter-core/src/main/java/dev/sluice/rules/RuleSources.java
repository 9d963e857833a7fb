package dev.sluice.rules;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The reloader's memory of its two sources: the last valid local and remote rules with their content
 * hashes, the last bad hash of each (so a bad version is parsed and reported once), and whether the
 * remote answers. Not thread-safe: the reloader guards it.
 */
final class RuleSources {

  private static final int MAX_REMEMBERED_REPORTS = 64;

  final Source local = new Source();
  final Source remote = new Source();
  private Boolean reachable; // null until the remote was first tried
  private Runnable undo = () -> {};
  private final Set<String> reported = new LinkedHashSet<>();

  static String hash(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Takes a valid version of one source; answers the rules now in force. */
  RuleSet accept(Source source, RuleSet rules, String hash) {
    RuleSet before = source.rules;
    String beforeHash = source.hash;
    undo = () -> {
      source.rules = before;
      source.hash = beforeHash;
      source.badHash = hash;
    };
    source.rules = rules;
    source.hash = hash;
    return inForce();
  }

  /** Forgets the version just accepted: the engine refused it. */
  void undoLast() {
    undo.run();
    undo = () -> {};
  }

  /** Records whether the remote answers; returns what was known before (null: never tried). */
  Boolean reachable(boolean now) {
    Boolean before = reachable;
    reachable = now;
    return before;
  }

  /** The remote's rules while it answers and has sent valid ones; the file's otherwise. */
  RuleSet inForce() {
    return remoteInForce() ? remote.rules : local.rules;
  }

  boolean remoteInForce() {
    return Boolean.TRUE.equals(reachable) && remote.rules != null;
  }

  /** Whether a bad version is seen for the first time (so it is logged once). */
  boolean firstReport(String version) {
    if (reported.contains(version)) {
      return false;
    }
    if (reported.size() >= MAX_REMEMBERED_REPORTS) {
      reported.remove(reported.iterator().next());
    }
    reported.add(version);
    return true;
  }

  /** One source's last good and last bad version. */
  static final class Source {
    private RuleSet rules;
    private String hash;
    private String badHash;

    /** Whether this content is neither the version in use nor the last one refused. */
    boolean isNew(String contentHash) {
      return !contentHash.equals(hash) && !contentHash.equals(badHash);
    }

    void reject(String contentHash) {
      badHash = contentHash;
    }
  }
}
