package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UnknownKeysTest {

  @Test
  void aTypoOfAKnownKeyNamesThatKey() {
    String typo = "sluice.limiters.transcode.max-concurency";

    String nearest = UnknownKeys.nearest(typo, UnknownKeys.candidates(typo, List.of("transcode")));

    assertThat(nearest).isEqualTo("sluice.limiters.transcode.max-concurrency");
  }

  @Test
  void aWordFartherThanAThirdOfItsLengthHasNoSuggestion() {
    assertThat(UnknownKeys.nearest("sluice.colour", List.of("sluice.strict"))).isNull();
    // "abcdef" is 6 long: 2 edits are a typo, 3 are another word
    assertThat(UnknownKeys.nearest("abcdef", List.of("abcxyz"))).isNull();
    assertThat(UnknownKeys.nearest("abcdef", List.of("abcdxy"))).isEqualTo("abcdxy");
  }

  @Test
  void theFirstOfEquallyNearCandidatesWins() {
    // one substitution from each
    assertThat(UnknownKeys.nearest("sluice.port", List.of("sluice.part", "sluice.post")))
        .isEqualTo("sluice.part");
    assertThat(UnknownKeys.nearest("sluice.port", List.of("sluice.post", "sluice.part")))
        .isEqualTo("sluice.post");
  }

  @Test
  void distanceCountsInsertionsDeletionsAndSubstitutions() {
    assertThat(UnknownKeys.distance("", "")).isZero();
    assertThat(UnknownKeys.distance("", "abc")).isEqualTo(3);
    assertThat(UnknownKeys.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(UnknownKeys.distance("flaw", "lawn")).isEqualTo(2);
  }

  @Test
  void aBoundedDistanceIsExactWithinItsBoundAndAboveItBeyond() {
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      String a = word(random);
      String b = random.nextBoolean() ? word(random) : mutate(a, random);
      int bound = random.nextInt(6);
      int exact = reference(a, b);

      int bounded = UnknownKeys.distance(a, b, bound);

      assertThat(UnknownKeys.distance(a, b)).as("%s / %s", a, b).isEqualTo(exact);
      if (exact <= bound) {
        assertThat(bounded).as("%s / %s within %d", a, b, bound).isEqualTo(exact);
      } else {
        assertThat(bounded).as("%s / %s beyond %d", a, b, bound).isGreaterThan(bound);
      }
    }
  }

  @Test
  void nearestIsTheFirstCandidateAtTheLeastDistanceWithinAThirdOfTheWord() {
    Random random = new Random(11);
    for (int i = 0; i < 2_000; i++) {
      String word = word(random);
      List<String> candidates = new ArrayList<>();
      int n = random.nextInt(30);
      for (int c = 0; c < n; c++) {
        candidates.add(random.nextInt(3) == 0 ? word(random) : mutate(word, random));
      }

      String expected = null;
      int least = Integer.MAX_VALUE;
      for (String c : candidates) {
        int d = reference(word, c);
        if (d < least) {
          least = d;
          expected = c;
        }
      }
      if (least > Math.max(2, word.length() / 3)) {
        expected = null;
      }

      assertThat(UnknownKeys.nearest(word, candidates))
          .as("%s among %s", word, candidates)
          .isEqualTo(expected);
    }
  }

  private static String word(Random random) {
    int length = random.nextInt(14);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < length; i++) {
      out.append((char) ('a' + random.nextInt(4)));
    }
    return out.toString();
  }

  /** Up to four random edits of {@code word}. */
  private static String mutate(String word, Random random) {
    StringBuilder out = new StringBuilder(word);
    int edits = random.nextInt(5);
    for (int e = 0; e < edits; e++) {
      int at = out.length() == 0 ? 0 : random.nextInt(out.length());
      char c = (char) ('a' + random.nextInt(4));
      switch (out.length() == 0 ? 0 : random.nextInt(3)) {
        case 0 -> out.insert(at, c);
        case 1 -> out.deleteCharAt(at);
        default -> out.setCharAt(at, c);
      }
    }
    return out.toString();
  }

  /** The textbook full-matrix Levenshtein distance. */
  private static int reference(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(d[i - 1][j - 1] + cost, Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1));
      }
    }
    return d[a.length()][b.length()];
  }
}
