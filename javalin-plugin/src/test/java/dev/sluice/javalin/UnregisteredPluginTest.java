package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javalin.http.Handler;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A plugin that was created but never registered with Javalin: it reports nothing to limit and
 * names the mistake when asked to do a request's work.
 */
class UnregisteredPluginTest {

  @Test
  void itReportsNoLimitersRulesOrStore() {
    SluicePlugin plugin = new SluicePlugin();
    assertThat(plugin.limiter("work")).isEmpty();
    assertThat(plugin.limiterConfig("work")).isEmpty();
    assertThat(plugin.snapshots()).isEmpty();
    assertThat(plugin.storeHealth()).isEmpty();
    assertThat(plugin.rateRules()).isEmpty();
    assertThat(plugin.ruleSnapshots()).isEmpty();
    assertThat(plugin.statusJson()).contains("\"enabled\":false").contains("\"limiters\":[]");
    assertThat(plugin.meterBinder()).isNotNull();
    assertThat(plugin.properties()).isNull();
    plugin.reload(); // nothing to reload: no error either
  }

  @Test
  void aWrappedHandlerOrABodyDiscardSaysThePluginIsNotInitialized() {
    SluicePlugin plugin = new SluicePlugin();
    AtomicBoolean ran = new AtomicBoolean();
    Handler endpoint = ctx -> ran.set(true);
    Handler wrapped = plugin.limited("work", endpoint);
    assertThatThrownBy(() -> wrapped.handle(null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Sluice is not initialized (disabled, or not registered)");
    assertThat(ran).isFalse();
    assertThatThrownBy(() -> plugin.discardBody(null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Sluice is not initialized (not registered)");
  }
}
