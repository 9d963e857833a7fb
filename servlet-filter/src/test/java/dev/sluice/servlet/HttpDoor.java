package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * One of Sluice's HTTP doors in a real server on a random port, in front of the same small
 * application: {@code /api/work} (answers {@code work}'s value, e.g. blocking until released),
 * {@code /api/history/<id>} and {@code /health}.
 */
interface HttpDoor {

  /** {@code http://127.0.0.1:<port>}. */
  String base();

  ConcurrencyLimiter limiter(String name);

  /** The registry the door's meters were bound to before it started. */
  MeterRegistry registry();

  /** Stops admitting, as the door does when its server stops (before draining). */
  void stopAdmitting();

  /** Stops the server. */
  void stop() throws Exception;

  /** Starts a door. */
  interface Starter {
    /**
     * Starts the door in front of the application.
     *
     * @param time the limiters' clock and scheduler, or null for the system's
     * @param maxThreads the server's thread pool
     * @param scratch a directory the server may write to, removed after the test
     */
    HttpDoor start(
        SluiceProperties properties,
        VirtualTime time,
        int maxThreads,
        Supplier<String> work,
        Path scratch)
        throws Exception;
  }
}
