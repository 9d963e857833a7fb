package dev.sluice.redis;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} (the binary on PATH) on a free loopback port, without persistence,
 * that a test can kill and restart on the same port. When the binary is missing the test fails if
 * {@code CI=true} and is skipped, loudly, everywhere else. Public (in the test-jar) for the
 * javalin-plugin's end-to-end tests.
 */
public final class RedisServer implements AutoCloseable {

  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private RedisServer(int port, List<String> extraArgs) {
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /**
   * Starts three cluster-enabled servers in {@code dir}, adding each to {@code masters} as it starts
   * (so the caller closes every one even when a later step fails), joins them with {@code
   * redis-cli --cluster create} (no replicas) and waits until each reports {@code cluster_state:ok}.
   */
  static void startCluster(Path dir, List<RedisServer> masters) throws Exception {
    List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    for (int i = 0; i < 3; i++) {
      RedisServer master = start(
          "--cluster-enabled",
          "yes",
          "--dir",
          dir.toString(),
          "--cluster-config-file",
          "nodes-" + i + ".conf",
          "--cluster-node-timeout",
          "5000");
      masters.add(master);
      create.add("127.0.0.1:" + master.port());
    }
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    Process creating = new ProcessBuilder(create)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    Assertions.assertTrue(
        creating.waitFor(30, TimeUnit.SECONDS), "redis-cli --cluster create did not end in 30 s");
    Assertions.assertEquals(0, creating.exitValue(), "redis-cli --cluster create failed");
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> masters.stream()
            .allMatch(m -> m.command("CLUSTER", "INFO").contains("cluster_state:ok")));
  }

  public static RedisServer start(String... extraArgs) {
    requireBinary();
    RedisServer server = new RedisServer(freePort(), List.of(extraArgs));
    server.launch();
    return server;
  }

  /** A free port with nothing listening on it, for tests of a Redis that is not there (yet). */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port", e);
    }
  }

  static void requireBinary() {
    if (onPath("redis-server")) {
      return;
    }
    String message = "redis-server is not on PATH: the Redis tests of limiter-redis need it "
        + "(apt-get install redis-server)";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail(message + " and CI=true, so this is a failure, not a skip");
    }
    System.err.println("!!!!!!!!!! SKIPPED: " + message + " !!!!!!!!!!");
    Assumptions.assumeTrue(false, message);
  }

  private static boolean onPath(String binary) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, binary))) {
        return true;
      }
    }
    return false;
  }

  static RedisServer onPort(int port) {
    requireBinary();
    RedisServer server = new RedisServer(port, List.of());
    server.launch();
    return server;
  }

  public int port() {
    return port;
  }

  public URI uri() {
    return URI.create("redis://127.0.0.1:" + port);
  }

  /** Kills the server the hard way (SIGKILL): no goodbye to its clients. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
    }
  }

  /** Starts a fresh, empty server on the same port. */
  void restart() {
    kill();
    launch();
  }

  /** Stops the process (SIGSTOP): it answers nothing and closes nothing, as a frozen host. */
  void pause() {
    signal("STOP");
  }

  /** Lets a paused process run on (SIGCONT). */
  void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    if (process == null) {
      return; // killed already
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot signal redis-server", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sends one command over a plain socket and returns the raw reply's first line. */
  public String command(String... args) {
    return command(port, args);
  }

  /** {@link #command(String...)} to whatever listens on {@code port} (a sentinel, say). */
  static String command(int port, String... args) {
    StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
    for (String arg : args) {
      request
          .append('$')
          .append(arg.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(arg)
          .append("\r\n");
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return readReply(socket.getInputStream());
    } catch (IOException e) {
      throw new IllegalStateException("redis at port " + port + ": " + e.getMessage(), e);
    }
  }

  /** Reads a simple, integer, error or bulk reply (enough for PING, PTTL, INFO, TYPE...). */
  private static String readReply(InputStream in) throws IOException {
    String first = readLine(in);
    if (first.isEmpty()) {
      // a sentinel reconfiguring the server closes its clients (CLIENT KILL TYPE normal)
      throw new IOException("closed without a reply");
    }
    if (first.startsWith("$")) {
      int length = Integer.parseInt(first.substring(1));
      if (length < 0) {
        return null;
      }
      byte[] body = in.readNBytes(length + 2);
      return new String(body, 0, length, StandardCharsets.UTF_8);
    }
    if (first.startsWith("*")) {
      int count = Integer.parseInt(first.substring(1));
      List<String> items = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        items.add(readReply(in));
      }
      return String.join("\n", items);
    }
    return first.substring(1);
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  private void launch() {
    try {
      List<String> command = new ArrayList<>(List.of(
          "redis-server",
          "--port",
          Integer.toString(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no"));
      command.addAll(extraArgs);
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server on port " + port, e);
    }
    await("redis-server on port " + port + " answers PING")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .ignoreExceptions()
        .until(() -> "PONG".equals(command("PING")));
  }

  @Override
  public void close() {
    kill();
  }
}
