package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import java.util.List;
import org.junit.jupiter.api.Test;

class PathLimiterTest {

  private static PathLimiter limiter(LimiterConfig config) {
    return new PathLimiter(
        config, ConcurrencyLimiter.builder(config.name()).spec(config.spec()).build());
  }

  @Test
  void theFirstDeclaredLimiterWhosePathMatchesGuards() {
    PathLimiter history =
        limiter(LimiterConfig.custom("history").path("/api/history/*").build());
    PathLimiter api = limiter(LimiterConfig.custom("api").path("/api/**").build());
    List<PathLimiter> limiters = List.of(history, api);

    assertThat(PathLimiter.first(limiters, "/api/history/7")).isSameAs(history);
    assertThat(PathLimiter.first(limiters, "/api/work")).isSameAs(api);
    assertThat(PathLimiter.first(limiters, "/health")).isNull();
    assertThat(PathLimiter.first(List.of(api, history), "/api/history/7")).isSameAs(api);
  }

  @Test
  void everyDoorAsksTheSameFirstMatchOverItsOwnLimiterType() {
    PathLimiter history =
        limiter(LimiterConfig.custom("history").path("/api/history/*").build());
    PathLimiter api = limiter(LimiterConfig.custom("api").path("/api/**").build());
    List<DoorLimiter> asDoorLimiters = List.of(history, api);

    PathLimiter typed = DoorLimiter.first(List.of(history, api), "/api/work");
    assertThat(typed).isSameAs(api);
    assertThat(DoorLimiter.first(asDoorLimiters, "/api/history/7")).isSameAs(history);
    assertThat(DoorLimiter.first(asDoorLimiters, "/health")).isNull();
    assertThat(DoorLimiter.first(List.<DoorLimiter>of(), "/api/work")).isNull();
  }

  @Test
  void matchesGrpcMethodPaths() {
    PathLimiter service =
        limiter(LimiterConfig.custom("svc").path("/pkg.Service/*").build());

    assertThat(service.guards("/pkg.Service/Get")).isTrue();
    assertThat(service.guards("/pkg.Other/Get")).isFalse();
    assertThat(service.name()).isEqualTo("svc");
  }

  @Test
  void callersFollowTheQueueSettings() {
    assertThat(
            limiter(LimiterConfig.custom("fifo").path("/a").build()).callers().needed())
        .isFalse();
  }

  @Test
  void aConfigWithoutAPathIsRefused() {
    LimiterConfig noPath = LimiterConfig.custom("work").build();
    ConcurrencyLimiter core =
        ConcurrencyLimiter.builder("work").spec(noPath.spec()).build();

    assertThatThrownBy(() -> new PathLimiter(noPath, core))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'work'");
  }

  @Test
  void aSharedLimiterGuardsTheGivenPatternNotItsConfigsPath() {
    LimiterConfig config = LimiterConfig.custom("work").path("/api/work").build();
    ConcurrencyLimiter core =
        ConcurrencyLimiter.builder("work").spec(config.spec()).build();
    PathLimiter shared = new PathLimiter(config, "/pkg.Service/*", core);

    assertThat(shared.guards("/pkg.Service/Get")).isTrue();
    assertThat(shared.guards("/api/work")).isFalse();
    assertThat(shared.pattern()).isEqualTo("/pkg.Service/*");
    assertThat(shared.config()).isSameAs(config);
    assertThat(shared.guardsSamePaths(new PathLimiter(config, "/pkg.Service//*", core)))
        .isTrue();
    assertThat(shared.guardsSamePaths(limiter(config))).isFalse();
    assertThatThrownBy(() -> new PathLimiter(config, "/pkg.Service/Ge*", core))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/pkg.Service/Ge*");
  }

  @Test
  void aPatternReachesTheDepthsItCanMatch() {
    LimiterConfig config = LimiterConfig.custom("work").build();
    ConcurrencyLimiter core =
        ConcurrencyLimiter.builder("work").spec(config.spec()).build();

    assertThat(new PathLimiter(config, "/pkg.Service/*", core).reachesDepth(2)).isTrue();
    assertThat(new PathLimiter(config, "/pkg.Service/**", core).reachesDepth(2)).isTrue();
    assertThat(new PathLimiter(config, "/**", core).reachesDepth(2)).isTrue();
    assertThat(new PathLimiter(config, "/pkg.Service", core).reachesDepth(2)).isFalse();
    assertThat(new PathLimiter(config, "/a/b/c", core).reachesDepth(2)).isFalse();
    assertThat(new PathLimiter(config, "/a/b/c/**", core).reachesDepth(2)).isFalse();
  }
}
