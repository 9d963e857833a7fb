package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class DoorBuilderTest {

  /** A door's builder as the servlet filter's and the gRPC interceptor's start. */
  private static final class TestDoor extends DoorBuilder<TestDoor> {
    @Override
    protected TestDoor self() {
      return this;
    }

    DoorBuilder.Parts parts() {
      return parts(LocalDoor.Words.GRPC_INTERCEPTOR, "test-door");
    }
  }

  private static TestDoor door(Map<String, String> properties) {
    return new TestDoor()
        .properties(SluiceProperties.builder().env(Map.of()).system(properties).build());
  }

  @Test
  void aDoorWithLimitersOfItsOwnMakesTheExecutorTheirWaitersStartOn() {
    DoorBuilder.Parts parts =
        door(Map.of("sluice.limiters.work.path", "/pkg.Work/*")).parts();
    try {
      assertThat(parts.door().limiters()).hasSize(1);
      assertThat(parts.ownExecutor()).isNotNull();
    } finally {
      parts.door().limiters().forEach(l -> l.limiter().shutdown());
      parts.ownExecutor().shutdown();
    }
  }

  @Test
  void aDoorWithoutLimitersOfItsOwnMakesNoExecutor() {
    // a gRPC door on shared limiters only: their owner's executor runs their waiters
    DoorBuilder.Parts parts = door(Map.of()).parts();

    assertThat(parts.door().limiters()).isEmpty();
    assertThat(parts.ownExecutor()).isNull();
  }

  @Test
  void aDisabledDoorMakesNoExecutor() {
    DoorBuilder.Parts parts = door(Map.of(
            "sluice.enabled", "false", "sluice.limiters.work.path", "/pkg.Work/*"))
        .parts();

    assertThat(parts.door().limiters()).isEmpty();
    assertThat(parts.ownExecutor()).isNull();
  }

  @Test
  void aGivenExecutorIsUsedAndNoneIsMade() {
    Executor given = Runnable::run;
    DoorBuilder.Parts parts =
        door(Map.of("sluice.limiters.work.path", "/pkg.Work/*")).executor(given).parts();
    try {
      assertThat(parts.ownExecutor()).isNull();
    } finally {
      parts.door().limiters().forEach(l -> l.limiter().shutdown());
    }
  }
}
