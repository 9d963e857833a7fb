package dev.sluice.ratelimit;

import dev.sluice.config.SluiceProperties;
import dev.sluice.ratelimit.simulated.QuotaProxy;
import dev.sluice.rules.RulesFileException;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service on a free real port serving RLQS with the quota rules of some properties, on a
 * virtual clock, and the test proxies connected to it.
 */
final class QuotaFixture implements AutoCloseable {

  static final RateLimitStrategy ALLOW_ALL =
      RateLimitStrategy.newBuilder().setBlanketRule(BlanketRule.ALLOW_ALL).build();
  static final RateLimitStrategy DENY_ALL =
      RateLimitStrategy.newBuilder().setBlanketRule(BlanketRule.DENY_ALL).build();

  final VirtualTime time;
  final RateLimitServer server;
  private final List<QuotaProxy> proxies = new ArrayList<>();

  QuotaFixture(Map<String, String> properties, VirtualTime time, Demands demands)
      throws IOException {
    this.time = time;
    try {
      this.server = RateLimitServer.start(
          0,
          DescriptorConfig.parse("empty.yaml", "domain: unused\n"),
          new LocalCounters(time),
          new QuotaDivision(rules(properties), demands),
          time);
    } catch (RulesFileException e) {
      throw new IllegalStateException(e);
    }
  }

  QuotaFixture(Map<String, String> properties) throws IOException {
    this(properties, new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT)));
  }

  private QuotaFixture(Map<String, String> properties, VirtualTime time) throws IOException {
    this(properties, time, new LocalDemands(time));
  }

  static QuotaRules rules(Map<String, String> properties) {
    return QuotaRules.from(
        SluiceProperties.builder().env(Map.of()).system(properties).build());
  }

  /** A proxy of domain {@code envoy} whose buckets allow all until assigned. */
  QuotaProxy proxy() {
    return proxy(ALLOW_ALL);
  }

  QuotaProxy proxy(RateLimitStrategy noAssignment) {
    QuotaProxy p = new QuotaProxy(server.port(), time, "envoy", noAssignment);
    proxies.add(p);
    return p;
  }

  @Override
  public void close() {
    proxies.forEach(QuotaProxy::close);
    server.close();
  }
}
