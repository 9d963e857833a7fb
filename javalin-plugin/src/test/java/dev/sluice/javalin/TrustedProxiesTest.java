package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.TrustedProxies;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrustedProxiesTest {

  private static String resolve(TrustedProxies t, String peer, String header) {
    return t.resolve(peer, Collections.enumeration(header == null ? List.of() : List.of(header)));
  }

  private static TrustedProxies forwarded(String cidrs) {
    return TrustedProxies.parse("k", cidrs).with(TrustedProxies.Header.FORWARDED, 64);
  }

  @Test
  void untrustedPeerIsTheClientWhateverItsHeaderSays() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8");
    assertThat(resolve(t, "192.0.2.7", "2.2.2.2")).isEqualTo("192.0.2.7");
    assertThat(resolve(forwarded("10.0.0.0/8"), "192.0.2.7", "for=1.1.1.1")).isEqualTo("192.0.2.7");
  }

  @Test
  void walksFromTheRightSkippingTrustedHops() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8, 192.168.1.1");
    assertThat(resolve(t, "10.0.0.5", "6.6.6.6, 203.0.113.9, 192.168.1.1, 10.2.3.4"))
        .isEqualTo("203.0.113.9");
  }

  @Test
  void theDefaultHeaderIsXForwardedForAndTheOtherIsNeverRead() {
    TrustedProxies xff = TrustedProxies.parse("k", "127.0.0.1");
    assertThat(xff.headerName()).isEqualTo("X-Forwarded-For");
    assertThat(forwarded("127.0.0.1").headerName()).isEqualTo("Forwarded");
  }

  @Test
  void forwardedPortsAndBracketsAreStrippedAndIpv6IsKeyedByItsPrefix() {
    TrustedProxies t = forwarded("::1, 127.0.0.1");
    assertThat(resolve(t, "127.0.0.1", "for=\"[2001:db8:cafe::17]:4711\""))
        .isEqualTo("2001:db8:cafe:0:0:0:0:0/64");
    assertThat(resolve(t, "0:0:0:0:0:0:0:1", "for=192.0.2.60;proto=http;by=203.0.113.43"))
        .isEqualTo("192.0.2.60");
  }

  @Test
  void oneHostRotatingThroughItsSlash64KeepsOneKey() {
    TrustedProxies t = TrustedProxies.none();
    assertThat(resolve(t, "2001:db8:1:2::1", null)).isEqualTo("2001:db8:1:2:0:0:0:0/64");
    assertThat(resolve(t, "2001:db8:1:2:ffff:abcd:1234:9", null))
        .isEqualTo("2001:db8:1:2:0:0:0:0/64");
    assertThat(resolve(t, "2001:db8:1:3::1", null)).isEqualTo("2001:db8:1:3:0:0:0:0/64");
  }

  @Test
  void theIpv6PrefixIsConfigurableDownToSingleAddresses() {
    TrustedProxies per56 = TrustedProxies.none().with(TrustedProxies.Header.X_FORWARDED_FOR, 56);
    TrustedProxies perAddress =
        TrustedProxies.none().with(TrustedProxies.Header.X_FORWARDED_FOR, 128);
    assertThat(resolve(per56, "2001:db8:1:2ff::1", null)).isEqualTo("2001:db8:1:200:0:0:0:0/56");
    assertThat(resolve(perAddress, "2001:db8::1", null)).isEqualTo("2001:db8:0:0:0:0:0:1");
  }

  @Test
  void allTrustedHopsYieldTheLeftmostAndGarbageStopsTheWalk() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8");
    assertThat(resolve(t, "10.0.0.1", "10.0.0.3, 10.0.0.2")).isEqualTo("10.0.0.3");
    assertThat(resolve(t, "10.0.0.1", "1.2.3.4, not-an-ip, 10.0.0.2")).isEqualTo("10.0.0.2");
    assertThat(resolve(t, "10.0.0.1", "999.1.1.1")).isEqualTo("10.0.0.1");
  }

  @Test
  void cidrPrefixesMatchBitByBit() {
    TrustedProxies t = TrustedProxies.parse("k", "172.16.0.0/12");
    assertThat(t.isTrusted(TrustedProxies.literal("172.31.255.255"))).isTrue();
    assertThat(t.isTrusted(TrustedProxies.literal("172.32.0.0"))).isFalse();
    assertThat(TrustedProxies.literal("evil.example.com")).isNull();
  }

  @Test
  void onlyAsciiTextIsAnAddress() {
    // found by RequestHeadersFuzzTest: other scripts' digits were read as an address
    assertThat(TrustedProxies.literal("\u0661\u0662\u0667.\u0660.\u0660.\u0661"))
        .isNull();
    assertThat(TrustedProxies.literal("\u0661:\u0662")).isNull();
    // text the JDK would hand to the resolver instead of parsing: never an address, never looked up
    assertThat(TrustedProxies.literal(".:1")).isNull();
    assertThat(TrustedProxies.literal("%:1")).isNull();
    assertThat(TrustedProxies.literal("127.0.0.1")).isNotNull();
    assertThat(TrustedProxies.literal("::1")).isNotNull();
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8");
    assertThat(resolve(t, "10.0.0.1", "\u0661\u0662\u0667.\u0660.\u0660.\u0661"))
        .isEqualTo("10.0.0.1");
  }

  @Test
  void aBadBlockNamesTheKeyTheListAndWhereItCameFrom() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.trusted-proxies", "127.0.0.1, 10.0.0.0/33"))
        .build();
    assertThatThrownBy(() -> Settings.resolve(p, Map.of()))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.trusted-proxies='127.0.0.1, 10.0.0.0/33' (from system property"
            + " -Dsluice.trusted-proxies): prefix length must be 0..32");
  }

  @Test
  void anUnknownHeaderChoiceNamesTheKeyAndTheValue() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.forwarded-header", "x-real-ip"))
        .build();
    assertThatThrownBy(() -> Settings.resolve(p, Map.of()))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.forwarded-header")
        .hasMessageContaining("x-real-ip");
  }
}
