package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.sampling.Percentiles;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChartsTest {

  @Test
  void latencyIsOnALogScaleSoMillisecondsShowBesideSeconds() {
    Map<String, Percentiles> latency = new LinkedHashMap<>();
    latency.put("GET /api/history 200", new Percentiles(100, 2, 3, 5, 8, 12));
    latency.put(
        "POST /api/transcode 200", new Percentiles(100, 4_000, 9_000, 14_000, 15_000, 16_000));

    assertThat(Charts.latencyChart(latency).getStyler().isYAxisLogarithmic()).isTrue();
    assertThat(Charts.latencyChart(latency).getYAxisTitle()).contains("log scale");
    // XChart draws text as paths, so the ticks cannot be read back; it renders without error
    assertThat(Charts.latency(latency)).startsWith("<svg");
  }

  @Test
  void chartsTakeTheWidthOfTheirColumn() {
    String svg = Charts.latency(Map.of());

    String tag = svg.substring(0, svg.indexOf('>'));
    assertThat(tag).contains("width=\"100%\"").contains("viewBox=").doesNotContain("height=");
  }

  @Test
  void tickLabelsAreRoundedToTwoDecimals() {
    org.knowm.xchart.XYChart chart = Charts.xy("CPU", "% CPU");

    assertThat(chart.getStyler().getYAxisDecimalPattern()).isEqualTo(Charts.TICKS);
    assertThat(chart.getStyler().getXAxisDecimalPattern()).isEqualTo(Charts.TICKS);
    assertThat(new java.text.DecimalFormat(
                Charts.TICKS, java.text.DecimalFormatSymbols.getInstance(java.util.Locale.ROOT))
            .format(0.1 + 0.2))
        .isEqualTo("0.3");
  }
}
