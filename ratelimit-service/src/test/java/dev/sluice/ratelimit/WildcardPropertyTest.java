package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * envoy/ratelimit's wildcard match, step for step, agrees with the glob it stands for (each
 * {@code *} any run of characters, none too) on random patterns and values over a small alphabet.
 */
@Tag("property")
class WildcardPropertyTest {

  @Test
  void matchesExactlyTheValuesTheGlobMatches() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    for (int i = 0; i < 20_000; i++) {
      String pattern = text(random, 6, "ab*");
      String value = text(random, 8, "ab");
      List<String> parts = List.of(pattern.split("\\*", -1));
      boolean glob = Pattern.compile(glob(pattern)).matcher(value).matches();
      assertThat(DescriptorNode.matches(parts, value))
          .as("seed %d: pattern '%s', value '%s'", seed, pattern, value)
          .isEqualTo(glob);
    }
  }

  private static String text(Random random, int maxLength, String alphabet) {
    StringBuilder out = new StringBuilder();
    int length = random.nextInt(maxLength + 1);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  private static String glob(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (String part : pattern.split("\\*", -1)) {
      if (regex.length() > 0) {
        regex.append(".*");
      }
      regex.append(Pattern.quote(part));
    }
    return regex.toString();
  }
}
