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

  private RuleSet local;
  private String localHash;
  private String localBadHash;
  private RuleSet remote;
  private String remoteHash;
  private String remoteBadHash;
  private Boolean reachable; // null until the remote was first tried
  private Runnable undo = () -> {};
  private final Set<String> reported = new LinkedHashSet<>();

  static String hash(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  boolean isNewLocal(String hash) {
    return !hash.equals(localHash) && !hash.equals(localBadHash);
  }

  boolean isNewRemote(String hash) {
    return !hash.equals(remoteHash) && !hash.equals(remoteBadHash);
  }

  /** Takes a valid local version; answers the rules now in force. */
  RuleSet acceptLocal(RuleSet rules, String hash) {
    RuleSet before = local;
    String beforeHash = localHash;
    undo = () -> {
      local = before;
      localHash = beforeHash;
      localBadHash = hash;
    };
    local = rules;
    localHash = hash;
    return inForce();
  }

  /** Takes a valid remote version; answers the rules now in force. */
  RuleSet acceptRemote(RuleSet rules, String hash) {
    RuleSet before = remote;
    String beforeHash = remoteHash;
    undo = () -> {
      remote = before;
      remoteHash = beforeHash;
      remoteBadHash = hash;
    };
    remote = rules;
    remoteHash = hash;
    return inForce();
  }

  /** Forgets the version just accepted: the engine refused it. */
  void undoLast() {
    undo.run();
    undo = () -> {};
  }

  void rejectLocal(String hash) {
    localBadHash = hash;
  }

  void rejectRemote(String hash) {
    remoteBadHash = hash;
  }

  /** Records whether the remote answers; returns what was known before (null: never tried). */
  Boolean reachable(boolean now) {
    Boolean before = reachable;
    reachable = now;
    return before;
  }

  /** The remote's rules while it answers and has sent valid ones; the file's otherwise. */
  RuleSet inForce() {
    return remoteInForce() ? remote : local;
  }

  boolean remoteInForce() {
    return Boolean.TRUE.equals(reachable) && remote != null;
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
}
