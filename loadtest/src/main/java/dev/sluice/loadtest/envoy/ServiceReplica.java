package dev.sluice.loadtest.envoy;

import dev.sluice.loadtest.engine.ChildProcesses;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One replica of the rate-limit service in a child JVM, started as a user starts the jar ({@code
 * dev.sluice.ratelimit.RateLimitServiceMain --config FILE}) from this process's class path, which
 * carries the service (in {@code loadtest.jar}, shaded, as it carries the demo). Ready once its
 * {@code grpc.health.v1} answers {@code SERVING}.
 */
final class ServiceReplica implements AutoCloseable {

  static final String MAIN_CLASS = "dev.sluice.ratelimit.RateLimitServiceMain";

  private final Process process;
  private final int port;
  private final ManagedChannel channel;
  private final Path admissions;

  private ServiceReplica(Process process, int port, Path admissions) {
    this.process = process;
    this.port = port;
    this.admissions = admissions;
    // the answers' callbacks only count and send the next call: they run on the transport's
    // thread, so the generator spends as little of the two cores as it can (Envoy's client is not
    // on this JVM's budget at all)
    this.channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", port, InsecureChannelCredentials.create())
        .directExecutor()
        .build();
  }

  /**
   * Starts a replica on a free port with {@code properties} (lines of {@code key=value}) beside
   * its port, writing its properties file, its log and its admissions file ({@link
   * #admissions()}) into {@code dir} under {@code name}.
   *
   * @throws IOException when it exits or is not serving within 60 s, naming its log
   */
  static ServiceReplica start(Path dir, String name, List<String> properties)
      throws IOException, InterruptedException {
    int port = freePort();
    Path config = dir.resolve(name + ".properties");
    Path admissions = dir.resolve(name + ".admissions").toAbsolutePath();
    Files.writeString(
        config,
        "sluice.ratelimit-service.port=" + port + "\n"
            + "sluice.ratelimit-service.admissions-file=" + admissions + "\n"
            + String.join("\n", properties) + "\n");
    return launch(
        dir.resolve(name + ".log"), port, admissions, MAIN_CLASS, "--config", config.toString());
  }

  /**
   * Starts an {@link EmptyRateLimitService} on a free port in a child JVM with the replicas' heap,
   * its log in {@code dir} under {@code name}: the transport's own ceiling beside the service's.
   *
   * @throws IOException when it exits or is not serving within 60 s, naming its log
   */
  static ServiceReplica empty(Path dir, String name) throws IOException, InterruptedException {
    return yardstick(dir, name, EmptyRateLimitService.class);
  }

  /**
   * Starts a {@link ScriptOnlyRateLimitService} counting in the {@code redis-server} on {@code
   * redisPort}, on a free port in a child JVM with the replicas' heap, its log in {@code dir} under
   * {@code name}: the least a service sharing its counters through Redis does, beside the service.
   *
   * @throws IOException when it exits or is not serving within 60 s, naming its log
   */
  static ServiceReplica scriptOnly(Path dir, String name, int redisPort)
      throws IOException, InterruptedException {
    return yardstick(dir, name, ScriptOnlyRateLimitService.class, Integer.toString(redisPort));
  }

  /** {@code main}'s class on a free port (its first argument), then {@code args}. */
  private static ServiceReplica yardstick(Path dir, String name, Class<?> main, String... args)
      throws IOException, InterruptedException {
    int port = freePort();
    List<String> mainAndArgs = new ArrayList<>(List.of(main.getName(), Integer.toString(port)));
    mainAndArgs.addAll(List.of(args));
    return launch(
        dir.resolve(name + ".log"),
        port,
        dir.resolve(name + ".admissions"),
        mainAndArgs.toArray(String[]::new));
  }

  /** A child JVM with this process's class path running {@code mainAndArgs}, once it serves. */
  private static ServiceReplica launch(Path log, int port, Path admissions, String... mainAndArgs)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-cp",
        System.getProperty("java.class.path")));
    command.addAll(List.of(mainAndArgs));
    Process process = ChildProcesses.stopWithThisJvm(new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start());
    ServiceReplica replica = new ServiceReplica(process, port, admissions);
    try {
      replica.awaitServing(Duration.ofSeconds(60), log);
    } catch (IOException | RuntimeException e) {
      replica.close();
      throw e;
    }
    return replica;
  }

  private void awaitServing(Duration timeout, Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException(
            "the rate-limit service exited with " + process.exitValue() + "; its log: " + log);
      }
      try {
        ServingStatus status = HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(1, TimeUnit.SECONDS)
            .check(HealthCheckRequest.getDefaultInstance())
            .getStatus();
        if (status == ServingStatus.SERVING) {
          return;
        }
      } catch (RuntimeException notYet) {
        // still starting
      }
      Thread.sleep(100); // polling a process we do not control; no event to wait on
    }
    throw new IOException(
        "the rate-limit service was not SERVING within " + timeout + "; its log: " + log);
  }

  /**
   * The file where the replica appends what it admitted and refused per counter and window, each
   * window once it has ended (and every window left when it stops); see {@link ServerWindows}.
   */
  Path admissions() {
    return admissions;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** The gRPC channel to it (one HTTP/2 connection, as an Envoy worker holds). */
  ManagedChannel channel() {
    return channel;
  }

  /** {@code kill -9}: no shutdown hook runs, no stream is completed. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  boolean alive() {
    return process.isAlive();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
