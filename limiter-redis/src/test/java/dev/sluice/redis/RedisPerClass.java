package dev.sluice.redis;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One redis-server for a whole test class:
 * {@code @RegisterExtension static final RedisPerClass REDIS = new RedisPerClass();}.
 *
 * <p>With {@code -Dsluice.redis.keepPerClass=true} (set for PIT's minions in this module's pom) a
 * class's server outlives the class and serves its next run in the same JVM, emptied first
 * (FLUSHALL, SCRIPT FLUSH, CONFIG RESETSTAT): PIT runs one test per JUnit run, so a class's
 * {@code @BeforeAll} comes once per test and mutant, and starting a server each time was close to
 * half of what the minions did. Sharing a server between a class's tests is what surefire does
 * too; the servers kept end with the JVM (see {@link RedisServer#reapWhenThisJvmDies}).
 */
final class RedisPerClass implements BeforeAllCallback, AfterAllCallback {

  private static final boolean KEEP = Boolean.getBoolean("sluice.redis.keepPerClass");

  /** Guarded by the class: the servers kept for the next run of their test class. */
  private static final Map<Class<?>, RedisServer> KEPT = new HashMap<>();

  private RedisServer server;

  @Override
  public void beforeAll(ExtensionContext context) {
    RedisServer kept;
    synchronized (RedisPerClass.class) {
      kept = KEPT.remove(context.getRequiredTestClass());
    }
    if (kept != null && emptied(kept)) {
      server = kept;
      return;
    }
    if (kept != null) {
      kept.close();
    }
    server = RedisServer.start();
  }

  /** Whether {@code kept} answers and is now as a new server: no keys, no scripts, no counts. */
  private static boolean emptied(RedisServer kept) {
    try {
      return "OK".equals(kept.command("FLUSHALL"))
          && "OK".equals(kept.command("SCRIPT", "FLUSH"))
          && "OK".equals(kept.command("CONFIG", "RESETSTAT"));
    } catch (RuntimeException e) {
      return false; // stopped or unreachable: a new one is started
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server == null) {
      return;
    }
    if (KEEP) {
      synchronized (RedisPerClass.class) {
        KEPT.put(context.getRequiredTestClass(), server);
      }
    } else {
      server.close();
    }
  }

  RedisServer server() {
    return server;
  }
}
