package dev.sluice.loadtest.engine;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The demo service in a child JVM on a free port, for {@code --embedded}.
 *
 * <p>A child process rather than the same JVM because the report charts the service's process CPU:
 * in one JVM the load generator's own CPU would be counted as the service's. The child runs from this
 * JVM's class path, so the loadtest jar carries the demo (runtime only: no loadtest class uses a demo
 * class; limiter-client is the one Sluice module it uses, as a client would).
 */
public final class DemoProcess implements AutoCloseable {

  static final String MAIN_CLASS = "dev.sluice.demo.TranscodeService";

  private final Process process;
  private final URI uri;

  private DemoProcess(Process process, URI uri) {
    this.process = process;
    this.uri = uri;
  }

  /**
   * Starts the service and waits until {@code /health} answers.
   *
   * @param properties {@code key=value} system properties for the service
   * @param log where the service's output goes
   */
  public static DemoProcess start(List<String> properties, Path log)
      throws IOException, InterruptedException {
    return start(properties, log, System.getProperty("java.class.path"));
  }

  /**
   * Starts the service from another class path, for example an earlier build of the loadtest jar
   * (which carries the demo), to compare two builds in one run.
   *
   * @param properties {@code key=value} system properties for the service
   * @param log where the service's output goes
   * @param classPath the child JVM's class path
   */
  public static DemoProcess start(List<String> properties, Path log, String classPath)
      throws IOException, InterruptedException {
    return start(properties, List.of(), log, classPath);
  }

  /**
   * With arguments for the service's {@code main}, e.g. {@code --config FILE}.
   *
   * @param properties {@code key=value} system properties for the service
   * @param args the service's arguments
   * @param log where the service's output goes
   */
  public static DemoProcess start(List<String> properties, List<String> args, Path log)
      throws IOException, InterruptedException {
    return start(properties, args, log, System.getProperty("java.class.path"));
  }

  /**
   * With variables added to the child's environment, e.g. {@code LD_PRELOAD} and {@code FAKETIME}
   * for a node whose clock is stepped (libfaketime preloaded into the JVM itself, so that {@link
   * #pid()} stays the JVM's).
   *
   * @param properties {@code key=value} system properties for the service
   * @param environment variables added to this process's environment
   * @param log where the service's output goes
   */
  public static DemoProcess start(
      List<String> properties, Map<String, String> environment, Path log)
      throws IOException, InterruptedException {
    return start(properties, List.of(), environment, log, System.getProperty("java.class.path"));
  }

  private static DemoProcess start(
      List<String> properties, List<String> args, Path log, String classPath)
      throws IOException, InterruptedException {
    return start(properties, args, Map.of(), log, classPath);
  }

  private static DemoProcess start(
      List<String> properties,
      List<String> args,
      Map<String, String> environment,
      Path log,
      String classPath)
      throws IOException, InterruptedException {
    int port = properties.stream()
        .filter(p -> p.startsWith("server.port="))
        .map(p -> Integer.parseInt(p.substring("server.port=".length())))
        .reduce((a, b) -> b)
        .orElse(0);
    if (port == 0) {
      port = freePort();
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    // JIT threads that never end, so that ProcessCpu can leave their time out of the process's
    command.add("-XX:-UseDynamicNumberOfCompilerThreads");
    command.add("-Dserver.port=" + port);
    for (String property : properties) {
      if (!property.startsWith("server.port=")) {
        command.add("-D" + property);
      }
    }
    command.add("-cp");
    command.add(classPath);
    command.add(MAIN_CLASS);
    command.addAll(args);
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    Process process = ChildProcesses.stopWithThisJvm(
        builder.redirectErrorStream(true).redirectOutput(log.toFile()).start());
    DemoProcess demo = new DemoProcess(process, URI.create("http://127.0.0.1:" + port + "/"));
    try {
      demo.awaitHealthy(Duration.ofSeconds(60), log);
    } catch (IOException | RuntimeException e) {
      demo.close();
      throw e;
    }
    return demo;
  }

  /**
   * The keys among {@code keys} that a service's log names as unknown: the service started, but
   * without them, so it is not the set-up asked for and its figures would be a lie.
   */
  public static List<String> unknownKeys(String serviceLog, List<String> keys) {
    return keys.stream()
        .filter(key -> serviceLog.contains("Unknown Sluice property '" + key + "'"))
        .toList();
  }

  public URI uri() {
    return uri;
  }

  /** The child's process id (the overhead run reads its CPU time). */
  public long pid() {
    return process.pid();
  }

  /**
   * Runs a full GC in the child ({@code jcmd <pid> GC.run}) and waits for it: the heap read right
   * after it is what is live, the one heap figure worth comparing (between two collections the heap
   * is a saw).
   */
  public void collectGarbage() throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(pid()), "GC.run")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (!gc.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
      gc.destroyForcibly();
      throw new IOException("jcmd " + pid() + " GC.run did not end within 30 s");
    }
  }

  private void awaitHealthy(Duration timeout, Path log) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException(
            "the demo service exited with " + process.exitValue() + "; its log: " + log);
      }
      try {
        HttpResponse<Void> response = client.send(
            HttpRequest.newBuilder(uri.resolve("health"))
                .timeout(Duration.ofSeconds(1))
                .build(),
            HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.sleep(100); // polling a process we do not control; no event to wait on
    }
    throw new IOException(
        "the demo service did not answer /health within " + timeout + "; log: " + log);
  }

  /** A port nobody listens on now (for a service started next). */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /**
   * Sends SIGTERM, as a deploy or a rolling restart does, and waits until the process has exited
   * (up to {@code timeout}; then it is killed).
   *
   * @return whether it exited by itself within the timeout
   */
  public boolean terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    if (process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      return true;
    }
    process.destroyForcibly().waitFor();
    return false;
  }

  /** Sends SIGKILL ({@code kill -9}): the process ends without any stop of its own. */
  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  /** Whether the process still runs. */
  public boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
