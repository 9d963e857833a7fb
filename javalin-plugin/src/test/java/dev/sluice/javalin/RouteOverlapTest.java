package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.request.ResourcePattern;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Route wildcards that can take many segments, against a pattern that runs out first or never
 * reaches the route's last fixed segment: no path matches both.
 */
class RouteOverlapTest {

  private static boolean overlaps(String pattern, String route) {
    return new RouteCheck(List.of(new RouteCheck.Route("GET", route)), false, false)
        .overlaps(ResourcePattern.parse(pattern), route);
  }

  @Test
  void anExactPatternEndingAtARouteWildcardMissesTheFixedSegmentAfterIt() {
    assertThat(overlaps("/a", "/a/*/b")).isFalse();
    assertThat(overlaps("/a/x", "/a/*/b")).isFalse();
    assertThat(overlaps("/a/x/b", "/a/*/b")).isTrue();
    assertThat(overlaps("/a/**", "/a/*/b")).isTrue();
  }

  @Test
  void twoRouteWildcardsStillNeedTheRoutesLastSegment() {
    assertThat(overlaps("/a/b/c/d", "/*/*/x")).isFalse();
    assertThat(overlaps("/a/b/c/x", "/*/*/x")).isTrue();
  }
}
