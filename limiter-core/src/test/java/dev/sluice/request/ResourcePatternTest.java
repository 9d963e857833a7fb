package dev.sluice.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResourcePatternTest {

  @Test
  void exactPatternMatchesOnlyItsPath() {
    ResourcePattern pattern = ResourcePattern.parse("/api/history");
    assertThat(pattern.matches("/api/history")).isTrue();
    assertThat(pattern.matches("/api/history/1")).isFalse();
    assertThat(pattern.matches("/api")).isFalse();
    assertThat(pattern.matches("/api/historyx")).isFalse();
  }

  @Test
  void extraSlashesDoNotStepAroundARule() {
    ResourcePattern pattern = ResourcePattern.parse("/api/history");
    assertThat(pattern.matches("/api//history/")).isTrue();
    assertThat(pattern.matches("//api/history")).isTrue();
  }

  @Test
  void singleStarMatchesExactlyOneSegment() {
    ResourcePattern pattern = ResourcePattern.parse("/api/history/*");
    assertThat(pattern.matches("/api/history/42")).isTrue();
    assertThat(pattern.matches("/api/history")).isFalse();
    assertThat(pattern.matches("/api/history/42/frames")).isFalse();
    assertThat(ResourcePattern.parse("/rewards/*/claim").matches("/rewards/7/claim"))
        .isTrue();
    assertThat(ResourcePattern.parse("/rewards/*/claim").matches("/rewards/7/view"))
        .isFalse();
  }

  @Test
  void doubleStarMatchesTheSubtreeAndItsRoot() {
    ResourcePattern pattern = ResourcePattern.parse("/api/**");
    assertThat(pattern.matches("/api")).isTrue();
    assertThat(pattern.matches("/api/a")).isTrue();
    assertThat(pattern.matches("/api/a/b/c")).isTrue();
    assertThat(pattern.matches("/apix")).isFalse();
    assertThat(ResourcePattern.parse("/**").matches("/")).isTrue();
    assertThat(ResourcePattern.parse("/**").matches("/anything/at/all")).isTrue();
  }

  @Test
  void rootPatternIsExactRoot() {
    assertThat(ResourcePattern.parse("/").matches("/")).isTrue();
    assertThat(ResourcePattern.parse("/").matches("/a")).isFalse();
  }

  @Test
  void depthCountsSegmentsBeforeTheSubtree() {
    assertThat(ResourcePattern.parse("/").depth()).isZero();
    assertThat(ResourcePattern.parse("/**").depth()).isZero();
    assertThat(ResourcePattern.parse("/api/**").depth()).isEqualTo(1);
    assertThat(ResourcePattern.parse("/api/*").depth()).isEqualTo(2);
    assertThat(ResourcePattern.parse("/api/history").depth()).isEqualTo(2);
  }

  @Test
  void dianaUrlIsTheSubtree() {
    ResourcePattern pattern = ResourcePattern.subtreeOf("/sample");
    assertThat(pattern.toString()).isEqualTo("/sample/**");
    assertThat(pattern.matches("/sample")).isTrue();
    assertThat(pattern.matches("/sample/x")).isTrue();
    assertThat(ResourcePattern.subtreeOf("/").toString()).isEqualTo("/**");
  }

  @Test
  void badPatternsAreRejectedNamingThePattern() {
    assertThatThrownBy(() -> ResourcePattern.parse("api"))
        .hasMessageContaining("must start with '/'")
        .hasMessageContaining("'api'");
    assertThatThrownBy(() -> ResourcePattern.parse("/a/**/b"))
        .hasMessageContaining("'/a/**/b'")
        .hasMessageContaining("last segment");
    assertThatThrownBy(() -> ResourcePattern.parse("/a/b*")).hasMessageContaining("'b*'");
    assertThatThrownBy(() -> ResourcePattern.parse("/a b")).hasMessageContaining("whitespace");
    assertThatThrownBy(() -> ResourcePattern.parse(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void equalPatternsAreEqualWhateverTheSlashes() {
    assertThat(ResourcePattern.parse("/a//b/")).isEqualTo(ResourcePattern.parse("/a/b"));
    assertThat(ResourcePattern.parse("/a/*")).isNotEqualTo(ResourcePattern.parse("/a/**"));
  }

  @Test
  void aRequestWithoutAPathMatchesNoPatternAndEqualPatternsHashAlike() {
    ResourcePattern any = ResourcePattern.parse("/**");

    assertThat(any.matches(null)).isFalse();
    assertThat(ResourcePattern.parse("/api/*")).hasSameHashCodeAs(ResourcePattern.parse("/api/*"));
    assertThat(ResourcePattern.parse("/api/*").hashCode())
        .as("different patterns spread over hash buckets")
        .isNotEqualTo(ResourcePattern.parse("/api/**").hashCode());
  }

  @Test
  void aPatternIsAtMost2048CharactersAndAStarStandsAloneInItsSegment() {
    String longest = "/" + "a".repeat(2047);

    assertThat(ResourcePattern.parse(longest).matches(longest)).isTrue();
    assertThatThrownBy(() -> ResourcePattern.parse(longest + "a"))
        .hasMessage("resource must be at most 2048 characters but was 2049");
    assertThatThrownBy(() -> ResourcePattern.parse("/api/*x"))
        .hasMessage("resource '/api/*x': segment '*x' mixes '*' with other characters;"
            + " use '*' or '**' as a whole segment");
  }
}
