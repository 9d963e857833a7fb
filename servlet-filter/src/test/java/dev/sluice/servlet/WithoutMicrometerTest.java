package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.StatusReport;
import jakarta.servlet.Filter;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is optional for the filter's users: in a class loader holding the filter, the core,
 * the configuration, sluice-http and the servlet API, and no Micrometer, the filter builds, serves
 * its status and says what its meters need.
 */
class WithoutMicrometerTest {

  private static URL jarOf(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  @Test
  void theFilterRunsAndAnswersItsStatusWithoutMicrometer() throws Exception {
    URL[] classPath = {
      jarOf(WithoutMicrometerApp.class), // test classes
      jarOf(SluiceFilter.class),
      jarOf(ConcurrencyLimiter.class),
      jarOf(SluiceProperties.class),
      jarOf(StatusReport.class),
      jarOf(Filter.class)
    };
    try (URLClassLoader loader =
        new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Supplier<String> app = (Supplier<String>) loader
          .loadClass(WithoutMicrometerApp.class.getName())
          .getDeclaredConstructor()
          .newInstance();

      String[] answer = app.get().split("\n", 3);

      assertThat(answer[0]).isEqualTo("reflected");
      assertThat(answer[1]).contains("io.micrometer:micrometer-core", "sluice-micrometer");
      assertThat(answer[2]).startsWith("{\"time\":").contains("\"name\":\"work\"");
    }
  }
}
