package dev.sluice.servlet;

import dev.sluice.config.SluiceProperties;
import java.util.Map;
import java.util.function.Supplier;

/**
 * An application without Micrometer, run by {@link WithoutMicrometerTest} in a class loader that
 * has none: it builds the filter, reflects on it as a framework does on a bean, and reports its
 * status and what asking for the meters answered.
 */
public final class WithoutMicrometerApp implements Supplier<String> {

  /** Made by reflection in the isolated class loader. */
  public WithoutMicrometerApp() {}

  @Override
  public String get() {
    SluiceFilter filter = SluiceFilter.builder()
        .properties(SluiceProperties.builder()
            .env(Map.of())
            .system(Map.of("sluice.limiters.work.path", "/api/*"))
            .build())
        .build();
    // what Spring does with a bean: every declared method and field, with their types
    int members = SluiceFilter.class.getDeclaredMethods().length
        + SluiceFilter.class.getDeclaredFields().length;
    String meters;
    try {
      SluiceFilter.Meters.of(filter);
      meters = "meters";
    } catch (IllegalStateException e) {
      meters = e.getMessage();
    }
    return (members > 0 ? "reflected" : "none") + "\n" + meters + "\n" + filter.statusJson();
  }
}
