package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's key from a peer address as containers give it: Jetty writes an IPv6 peer in
 * brackets ({@code [::1]}), Tomcat does not; both are the same client.
 */
class TrustedProxiesTest {

  @Test
  void aBracketedIpv6PeerIsKeyedByItsPrefixAsAnUnbracketedOneIs() {
    TrustedProxies none = TrustedProxies.none();

    assertThat(none.resolve("[2001:db8:1:2:3:4:5:6]", Collections.emptyEnumeration()))
        .isEqualTo("2001:db8:1:2:0:0:0:0/64")
        .isEqualTo(none.resolve("2001:db8:1:2:3:4:5:6", Collections.emptyEnumeration()));
  }

  @Test
  void aBracketedIpv6ProxyIsTrustedAndItsForwardedClientIsTheKey() {
    TrustedProxies proxies = TrustedProxies.parse("sluice.trusted-proxies", "::1");

    assertThat(
            proxies.resolve("[0:0:0:0:0:0:0:1]", Collections.enumeration(List.of("198.51.100.7"))))
        .isEqualTo("198.51.100.7");
  }

  @Test
  void onlyAWholeBracketPairAroundSomethingIsTakenOff() {
    assertThat(TrustedProxies.unbracketed("[0:0:0:0:0:0:0:1]")).isEqualTo("0:0:0:0:0:0:0:1");
    assertThat(TrustedProxies.unbracketed("[::1")).isEqualTo("[::1");
    assertThat(TrustedProxies.unbracketed("::1]")).isEqualTo("::1]");
    assertThat(TrustedProxies.unbracketed("[]")).isEqualTo("[]");
    assertThat(TrustedProxies.unbracketed("[")).isEqualTo("[");
    assertThat(TrustedProxies.unbracketed("127.0.0.1")).isEqualTo("127.0.0.1");
    assertThat(TrustedProxies.unbracketed(null)).isNull();
  }
}
