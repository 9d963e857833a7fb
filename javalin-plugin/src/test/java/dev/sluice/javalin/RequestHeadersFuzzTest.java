package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.concurrency.Priority;
import dev.sluice.config.QueueSettings;
import dev.sluice.http.Deadline;
import dev.sluice.http.TrustedProxies;
import dev.sluice.request.RequestInfo;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.slf4j.LoggerFactory;

/**
 * Bad request headers at scale: the headers a client writes (deadline, priority, declared cost,
 * the forwarding header behind a trusted proxy) never make the plugin throw. A header it cannot
 * read is absent (the deadline, the priority, an unusable hop), or for a declared cost the one
 * documented 400 ({@link RequestCost.BadCost}). The corpus
 * (src/test/resources/dev/sluice/javalin/RequestHeadersFuzzTestInputs/) is replayed as a plain
 * test without JAZZER_FUZZ=1.
 */
@Tag("fuzz")
class RequestHeadersFuzzTest {

  private static final String COST_HEADER = "X-Cost";

  /** Every address is a trusted proxy, so the whole header is walked. */
  private static final TrustedProxies EVERY_PROXY =
      TrustedProxies.parse("sluice.trusted-proxies", "0.0.0.0/0, ::/0");

  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void deadlineAndPriorityAreReadOrAbsentNeverThrown(byte[] data) {
    String value = new String(data, StandardCharsets.UTF_8);

    long nanos = Deadline.parseNanos(value);
    assertThat(nanos).isGreaterThanOrEqualTo(Deadline.MALFORMED);
    String v = value.trim();
    if (!v.isEmpty() && v.length() <= 18 && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      long millis = Long.parseLong(v);
      assertThat(nanos)
          .isEqualTo(millis > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : millis * 1_000_000);
    }

    assertThat(Priority.parse(value)).isNotNull();
  }

  /** The first byte picks the cost-scale (1..256), the rest is the header's value. */
  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void declaredCostIsAtLeastOneUnitOrTheDocumented400(byte[] data) {
    if (data.length == 0) {
      return;
    }
    int scale = Byte.toUnsignedInt(data[0]) + 1;
    String value = new String(Arrays.copyOfRange(data, 1, data.length), StandardCharsets.UTF_8);
    RequestCost cost = RequestCost.of(
        "header:" + COST_HEADER,
        scale,
        QueueSettings.FIFO,
        new CostCeiling(
            "api",
            Integer.MAX_VALUE,
            Warnings.to(LoggerFactory.getLogger(RequestHeadersFuzzTest.class))));
    int units;
    try {
      units = cost.of(withHeader(value), name -> null);
    } catch (RequestCost.BadCost e) {
      assertThat(e.getMessage()).startsWith("header " + COST_HEADER + " must be");
      return;
    }
    assertThat(units).isPositive();
  }

  /**
   * The first byte picks the header the proxies write and the IPv6 prefix; the rest, split at
   * line breaks, are the header's values (one per header line).
   */
  @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
  void forwardedHopsResolveToAnAddressKeyNeverThrown(byte[] data) {
    if (data.length == 0) {
      return;
    }
    TrustedProxies.Header header = (data[0] & 1) == 0
        ? TrustedProxies.Header.X_FORWARDED_FOR
        : TrustedProxies.Header.FORWARDED;
    int prefix = (Byte.toUnsignedInt(data[0]) >>> 1) % 129;
    TrustedProxies proxies = EVERY_PROXY.with(header, prefix);
    String text = new String(Arrays.copyOfRange(data, 1, data.length), StandardCharsets.UTF_8);
    List<String> values = Arrays.asList(text.split("\n", -1));

    String key = proxies.resolve("192.0.2.1", Collections.enumeration(values));

    // the key is an address (IPv4 as it is, IPv6 as its prefix): it parses back as one
    int slash = key.indexOf('/');
    assertThat(TrustedProxies.literal(slash < 0 ? key : key.substring(0, slash)))
        .as("key %s of %s", key, text)
        .isNotNull();
    for (String value : values) {
      for (String hop : value.split("[,;=\"\\[\\] ]")) {
        if (TrustedProxies.literal(hop) != null) {
          // only ASCII text is an address: no other script's digits, nothing a resolver would look
          // up
          assertThat(hop.chars().allMatch(c -> c > ' ' && c < 0x7f)).as(hop).isTrue();
        }
      }
    }
  }

  private static RequestInfo withHeader(String value) {
    return new TestRequest(
        "192.0.2.1", "/api/transcode", Map.of(COST_HEADER.toLowerCase(Locale.ROOT), value));
  }
}
