package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.LimiterConfig;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The configuration lambda reads as one chain ({@code cfg -> cfg.limiter(..).executor(..)}):
 * every setter answers the configuration it was called on.
 */
class SluiceConfigChainTest {

  @Test
  void everySetterAnswersTheConfigurationItself() {
    SluiceConfig cfg = new SluiceConfig();
    CpuSignal idle = () -> new CpuSignal.Reading(0, 1);
    Executor direct = Runnable::run;

    assertThat(cfg.limiter(LimiterConfig.custom("work").build())).isSameAs(cfg);
    assertThat(cfg.limiter("other", l -> {})).isSameAs(cfg);
    assertThat(cfg.executor(direct)).isSameAs(cfg);
    assertThat(cfg.customActor("tenant", request -> Optional.of("t"))).isSameAs(cfg);
    assertThat(cfg.cpuSignal(idle)).isSameAs(cfg);
    assertThat(cfg.cpuSignals(idle, idle)).isSameAs(cfg);
  }
}
