package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The strict check: a {@code sluice.*} key Sluice does not know is almost always a typo
 * ({@code max-concurency}), and ignoring it runs the limiter with a default nobody chose. Each one
 * is named with where it came from and the nearest known key.
 */
public final class UnknownKeys {

  private UnknownKeys() {}

  /**
   * Fails (strict) or warns about every unknown key.
   *
   * @param limiterNames limiter names known from code and properties, for the suggestions
   * @param warnings where the unknown keys go when not strict
   * @throws SluiceConfigException in strict mode, naming the first unknown key (and counting the rest)
   */
  public static void check(
      SluiceProperties p,
      Collection<String> limiterNames,
      boolean strict,
      ConfigWarnings warnings) {
    List<SluiceConfigException> unknown = new ArrayList<>();
    List<String> known = null; // the candidates of every key, spelt out once
    for (String key : p.asMap().keySet()) {
      if (!SluiceKeys.isKnown(key)) {
        if (known == null) {
          known = List.copyOf(candidates("", limiterNames));
        }
        String nearest = nearest(key, withOwnName(known, key, limiterNames));
        unknown.add(new SluiceConfigException(
            key,
            p.get(key).orElse(null),
            p.source(key).orElse(null),
            "unknown Sluice key" + (nearest == null ? "" : "; did you mean '" + nearest + "'?")));
      }
    }
    if (unknown.isEmpty()) {
      return;
    }
    if (!strict) {
      unknown.forEach(e -> warnings.warn(
          "unknown key " + e.key(),
          e.getMessage() + " (ignored: " + SluiceKeys.STRICT + "=false)"));
      return;
    }
    throw strictFailure(unknown, "unknown");
  }

  /**
   * The one error strict mode fails with: the first problem, and the others counted and listed
   * below it ({@code "; 2 more unknown:"}), with how to only warn.
   */
  public static SluiceConfigException strictFailure(
      List<SluiceConfigException> problems, String more) {
    SluiceConfigException first = problems.get(0);
    if (problems.size() == 1) {
      return new SluiceConfigException(
          first.key(),
          first.value(),
          first.source(),
          first.problem() + " (set " + SluiceKeys.STRICT + "=false to only warn)");
    }
    StringBuilder rest = new StringBuilder();
    for (SluiceConfigException e : problems.subList(1, problems.size())) {
      rest.append("\n  ").append(e.getMessage());
    }
    return new SluiceConfigException(
        first.key(),
        first.value(),
        first.source(),
        first.problem() + "; " + (problems.size() - 1) + " more " + more + ":" + rest + "\n(set "
            + SluiceKeys.STRICT + "=false to only warn)");
  }

  /** {@code known}, then the limiter keys of the name {@code key} writes if no limiter has it. */
  private static Collection<String> withOwnName(
      List<String> known, String key, Collection<String> limiterNames) {
    String own = ownName(key);
    if (own == null || limiterNames.contains(own)) {
      return known;
    }
    List<String> out = new ArrayList<>(known.size() + LimiterKeys.ALL.size());
    out.addAll(known);
    LimiterKeys.ALL.forEach(k -> out.add(LimiterConfig.property(own, k)));
    return out;
  }

  /** The limiter name of {@code sluice.<anything>.<name>.<suffix>...}, or null. */
  private static String ownName(String key) {
    String[] parts = key.split("\\.");
    return parts.length >= 4 && parts[0].equals("sluice") ? parts[2] : null;
  }

  /** Every known key, with the limiter keys spelt out for the known names and the key's own. */
  public static Set<String> candidates(String key, Collection<String> limiterNames) {
    Set<String> out = new LinkedHashSet<>();
    SluiceKeys.ALL.forEach(k -> out.add(k.name()));
    Set<String> names = new LinkedHashSet<>(limiterNames);
    String own = ownName(key);
    if (own != null) {
      names.add(own); // sluice.limiterz.work.path: keep the name the user wrote
    }
    for (String name : names) {
      LimiterKeys.ALL.forEach(k -> out.add(LimiterConfig.property(name, k)));
    }
    return out;
  }

  /**
   * The candidate nearest to {@code word} in edit distance, if near enough to be a typo; or null.
   * The first of equally near candidates wins.
   */
  public static String nearest(String word, Collection<String> candidates) {
    // beyond a third of the word it is another word, not a typo
    int threshold = Math.max(2, word.length() / 3);
    String best = null;
    int bestDistance = threshold + 1;
    for (String c : candidates) {
      // the distance is at least the difference in length: most candidates end here, which keeps a
      // file of many unknown keys against many limiters' keys cheap to check
      if (Math.abs(c.length() - word.length()) >= bestDistance) {
        continue;
      }
      int d = distance(word, c, bestDistance - 1);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance, two rows. */
  public static int distance(String a, String b) {
    return distance(a, b, Integer.MAX_VALUE - 1);
  }

  /**
   * Levenshtein distance, two rows, given up as soon as it must exceed {@code bound}: then some
   * number above {@code bound}.
   */
  static int distance(String a, String b, int bound) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      int rowLeast = cur[0];
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
        rowLeast = Math.min(rowLeast, cur[j]);
      }
      // no later row has a smaller least value than this one
      if (rowLeast > bound) {
        return bound + 1;
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
