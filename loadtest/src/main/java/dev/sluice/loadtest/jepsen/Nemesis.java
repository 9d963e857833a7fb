package dev.sluice.loadtest.jepsen;

import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.soak.SoakRedis;
import dev.sluice.testing.FaultProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Injects and heals the faults of a {@link Schedule} on real processes: the fault proxy between the
 * nodes and Redis, the {@code redis-server} process, and the two demo nodes (each on a fixed port,
 * so that a node restarted under a false clock answers where the load sends).
 */
final class Nemesis {

  /** Where Debian's {@code faketime} package puts the library the {@code faketime} binary preloads. */
  static final List<String> LIBFAKETIME = List.of(
      "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
      "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
      "/usr/lib/faketime/libfaketime.so.1");

  private final SoakRedis redis;
  private final FaultProxy proxy;
  private final DemoProcess[] nodes;
  private final List<List<String>> properties;
  private final Path out;
  private int restarts;

  Nemesis(
      SoakRedis redis,
      FaultProxy proxy,
      DemoProcess[] nodes,
      List<List<String>> properties,
      Path out) {
    this.redis = redis;
    this.proxy = proxy;
    this.nodes = nodes;
    this.properties = properties;
    this.out = out;
  }

  /** libfaketime, or empty when the {@code faketime} package is not installed. */
  static Optional<Path> libfaketime() {
    return LIBFAKETIME.stream().map(Path::of).filter(Files::isReadable).findFirst();
  }

  /**
   * Injects {@code fault}.
   *
   * @throws IOException when a process does not do what it is told
   */
  void inject(Schedule.Planned fault) throws IOException, InterruptedException {
    switch (fault.kind()) {
      case RESET -> proxy.cut();
      case BLACKHOLE -> proxy.blackhole();
      case DELAY -> proxy.delay(Duration.ofMillis(200));
      case LOSS -> proxy.loss(0.2);
      case RESTART_EMPTY -> redis.kill();
      case REDIS_PAUSE -> signal(redis.pid(), "STOP");
      case FLUSHALL -> redis.command("FLUSHALL");
      case NODE_PAUSE -> signal(nodes[fault.node()].pid(), "STOP");
      case CLOCK ->
        restart(
            fault.node(),
            Map.of(
                "LD_PRELOAD", libfaketime().orElseThrow().toString(),
                "FAKETIME", fault.clock(),
                // the monotonic clock too (libfaketime's default, said here on purpose): the
                // node's nanoTime, which its local shares and lease timers run on, is stepped and
                // runs fast or slow with the wall clock
                "FAKETIME_DONT_FAKE_MONOTONIC", "0"));
    }
  }

  /** Heals {@code fault}: the network passes again, Redis runs again, the node is itself again. */
  void heal(Schedule.Planned fault) throws IOException, InterruptedException {
    switch (fault.kind()) {
      case RESTART_EMPTY -> redis.restart();
      case REDIS_PAUSE -> signal(redis.pid(), "CONT");
      case FLUSHALL -> {
        // a moment: nothing to heal
      }
      case NODE_PAUSE -> signal(nodes[fault.node()].pid(), "CONT");
      case CLOCK -> restart(fault.node(), Map.of());
      default -> {
        proxy.delay(Duration.ZERO);
        proxy.heal();
      }
    }
  }

  /** Stops node {@code n} as a deploy would (SIGTERM) and starts it again on its port. */
  private void restart(int n, Map<String, String> environment)
      throws IOException, InterruptedException {
    nodes[n].terminate(Duration.ofSeconds(15));
    restarts++;
    nodes[n] = DemoProcess.start(
        properties.get(n),
        environment,
        out.resolve("server-" + (n + 1) + "-restart-" + restarts + ".log"));
  }

  private static void signal(long pid, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
        .redirectErrorStream(true)
        .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + signal + " " + pid + " failed: "
          + new String(
              kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }
}
