package dev.sluice.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One redis-server for a whole test class:
 * {@code @RegisterExtension static final RedisPerClass REDIS = new RedisPerClass();}.
 */
final class RedisPerClass implements BeforeAllCallback, AfterAllCallback {

  private RedisServer server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = RedisServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }

  RedisServer server() {
    return server;
  }
}
