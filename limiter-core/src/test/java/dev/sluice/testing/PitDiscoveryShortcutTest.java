package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.InvocationInterceptor.Invocation;

/** Outside PIT's search for tests, the shortcut runs everything it intercepts. */
class PitDiscoveryShortcutTest {

  private final List<String> calls = new ArrayList<>();

  private Invocation<Void> invocation() {
    return new Invocation<>() {
      @Override
      public Void proceed() {
        calls.add("proceed");
        return null;
      }

      @Override
      public void skip() {
        calls.add("skip");
      }
    };
  }

  @Test
  void aTestRunOutsidePitIsNotSeenAsPitsSearch() {
    assertThat(PitDiscoveryShortcut.findingTests()).isFalse();
  }

  @Test
  void everyInterceptedMethodRunsOutsidePit() throws Throwable {
    PitDiscoveryShortcut shortcut = new PitDiscoveryShortcut();
    shortcut.interceptBeforeAllMethod(invocation(), null, null);
    shortcut.interceptBeforeEachMethod(invocation(), null, null);
    shortcut.interceptTestMethod(invocation(), null, null);
    shortcut.interceptTestTemplateMethod(invocation(), null, null);
    shortcut.interceptAfterEachMethod(invocation(), null, null);
    shortcut.interceptAfterAllMethod(invocation(), null, null);
    assertThat(calls).hasSize(6).containsOnly("proceed");
  }
}
