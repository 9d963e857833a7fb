package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrustedProxiesTest {

  private static String resolve(TrustedProxies t, String peer, String forwarded, String xff) {
    return t.resolve(peer,
        Collections.enumeration(forwarded == null ? List.of() : List.of(forwarded)),
        Collections.enumeration(xff == null ? List.of() : List.of(xff)));
  }

  @Test
  void untrustedPeerIsTheClientWhateverItsHeadersSay() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8");
    assertThat(resolve(t, "192.0.2.7", "for=1.1.1.1", "2.2.2.2")).isEqualTo("192.0.2.7");
  }

  @Test
  void walksFromTheRightSkippingTrustedHops() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8, 192.168.1.1");
    assertThat(resolve(t, "10.0.0.5", null, "6.6.6.6, 203.0.113.9, 192.168.1.1, 10.2.3.4"))
        .isEqualTo("203.0.113.9");
  }

  @Test
  void forwardedWinsAndItsPortsAndBracketsAreStripped() {
    TrustedProxies t = TrustedProxies.parse("k", "::1, 127.0.0.1");
    assertThat(resolve(t, "127.0.0.1", "for=\"[2001:db8:cafe::17]:4711\"", "9.9.9.9"))
        .isEqualTo("2001:db8:cafe:0:0:0:0:17");
    assertThat(resolve(t, "0:0:0:0:0:0:0:1", "for=192.0.2.60;proto=http;by=203.0.113.43", null))
        .isEqualTo("192.0.2.60");
  }

  @Test
  void allTrustedHopsYieldTheLeftmostAndGarbageStopsTheWalk() {
    TrustedProxies t = TrustedProxies.parse("k", "10.0.0.0/8");
    assertThat(resolve(t, "10.0.0.1", null, "10.0.0.3, 10.0.0.2")).isEqualTo("10.0.0.3");
    assertThat(resolve(t, "10.0.0.1", null, "1.2.3.4, not-an-ip, 10.0.0.2")).isEqualTo("10.0.0.2");
    assertThat(resolve(t, "10.0.0.1", null, "999.1.1.1")).isEqualTo("10.0.0.1");
  }

  @Test
  void cidrPrefixesMatchBitByBit() {
    TrustedProxies t = TrustedProxies.parse("k", "172.16.0.0/12");
    assertThat(t.isTrusted(TrustedProxies.literal("172.31.255.255"))).isTrue();
    assertThat(t.isTrusted(TrustedProxies.literal("172.32.0.0"))).isFalse();
    assertThat(TrustedProxies.literal("evil.example.com")).isNull();
  }
}
