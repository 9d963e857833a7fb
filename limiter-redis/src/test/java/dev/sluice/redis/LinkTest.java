package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The one connection of a node: where it points, when it connects, what replaces it. */
@Tag("integration")
class LinkTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration WAIT = Duration.ofSeconds(3);

  private static Link link(URI uri, Duration timeout, Duration connectTimeout) {
    StoreSettings settings =
        new StoreSettings(uri, timeout, 1, FailurePolicy.LOCAL, NanoClock.system(), connectTimeout);
    return new Link(settings, UriOptions.parse(uri), new CallBound(settings));
  }

  private static Link link(String uri) {
    return link(URI.create(uri), Duration.ofMillis(50), Duration.ofSeconds(1));
  }

  @Test
  void itNamesWhereItPointsWithoutTheCredentials() {
    try (Link plain = link("redis://user:secret@cache.example:6380/2");
        Link tls = link("rediss://cache.example:6380");
        Link cluster = link("redis://10.0.0.5:6379?cluster=true")) {
      assertThat(plain.where()).isEqualTo("redis://cache.example:6380");
      assertThat(tls.where()).isEqualTo("rediss://cache.example:6380");
      assertThat(cluster.where()).isEqualTo("redis://10.0.0.5:6379 (cluster)");
      assertThat(cluster.isCluster()).isTrue();
      assertThat(plain.isCluster()).isFalse();
    }
  }

  @Test
  void itNamesTheSentinelsAndTheMaster() {
    try (Link sentinel = link("redis-sentinel://10.0.0.7:26379,10.0.0.8:26380#mymaster")) {
      assertThat(sentinel.where())
          .isEqualTo("redis-sentinel://10.0.0.7:26379,10.0.0.8:26380#mymaster");
    }
  }

  @Test
  void aPingMayTakeAsLongAsAConnectButNeverLessThanACall() {
    URI uri = REDIS.server().uri();
    try (Link quick = link(uri, Duration.ofMillis(50), Duration.ofSeconds(1));
        Link slow = link(uri, Duration.ofSeconds(2), Duration.ofSeconds(1))) {
      assertThat(quick.pingTimeout()).isEqualTo(Duration.ofSeconds(1));
      assertThat(slow.pingTimeout()).isEqualTo(Duration.ofSeconds(2));
    }
  }

  @Test
  void theFirstCommandsStartAConnectAndAnswerNoneUntilItIsOpen() {
    try (Link link = link(REDIS.server().uri().toString())) {
      assertThat(link.isConnected()).isFalse();
      assertThat(link.current()).isNull();

      assertThat(link.commands()).isNull();

      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(link::isConnected);
      assertThat(link.commands()).isNotNull();
      assertThat(link.current()).isNotNull();
      assertThat(link.lastConnectError()).isNull();
    }
  }

  @Test
  void aFailedConnectSaysWhy() {
    try (Link link = link("redis://127.0.0.1:" + RedisServer.freePort())) {
      link.connect().join();

      assertThat(link.isConnected()).isFalse();
      assertThat(link.commands()).isNull();
      assertThat(link.lastConnectError()).isNotNull();
    }
  }

  @Test
  void aReplacedConnectionIsReplacedOnce() {
    try (Link link = link(REDIS.server().uri().toString())) {
      link.connect().join();
      var first = link.current();

      link.replace(first);
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(link::isConnected);
      var second = link.current();
      // a late report about the first connection leaves its successor alone
      link.replace(first);

      assertThat(second).isNotSameAs(first);
      assertThat(first.isOpen()).isFalse();
      assertThat(link.current()).isSameAs(second);
      assertThat(second.isOpen()).isTrue();
    }
  }

  @Test
  void aClosedLinkOpensNothing() {
    Link link = link(REDIS.server().uri().toString());
    link.close();

    assertThat(link.connect()).isCompleted();
    assertThat(link.commands()).isNull();
    assertThat(link.isConnected()).isFalse();
    assertThat(link.connectPubSub()).isCompletedExceptionally();
  }

  @Test
  void aClosedLinkReplacesNothing() {
    Link link = link(REDIS.server().uri().toString());
    link.connect().join();
    var open = link.current();
    link.close();

    link.replace(open);

    assertThat(link.current()).isSameAs(open);
  }
}
