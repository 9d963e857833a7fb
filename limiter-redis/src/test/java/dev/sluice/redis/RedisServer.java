package dev.sluice.redis;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
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
  private Path output; // the server's own log: why it stopped, when it does

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
      RedisServer master = startClusterNode(dir, i, Duration.ofSeconds(5));
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

  /**
   * One cluster-enabled server, its node file {@code nodes-<i>.conf} in {@code dir}. Its cluster bus
   * gets a free port of its own ({@code --cluster-port}): by default the bus listens 10,000 above
   * the client port, which may be taken (an ephemeral port of any connection on the machine), and
   * then the server cannot start.
   */
  static RedisServer startClusterNode(Path dir, int i, Duration nodeTimeout) {
    return start(
        "--cluster-enabled",
        "yes",
        "--cluster-port",
        Integer.toString(freePort()),
        "--dir",
        dir.toString(),
        "--cluster-config-file",
        "nodes-" + i + ".conf",
        "--cluster-node-timeout",
        Long.toString(nodeTimeout.toMillis()));
  }

  public static RedisServer start(String... extraArgs) {
    requireBinary();
    RedisServer server = new RedisServer(freePort(), List.of(extraArgs));
    server.launch();
    return server;
  }

  /** A free port with nothing listening on it, for tests of a Redis that is not there (yet). */
  public static int freePort() {
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

  /** A server on a port chosen beforehand (see {@link #freePort()}), for a client started first. */
  public static RedisServer onPort(int port) {
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
  public void restart() {
    kill();
    launch();
  }

  /** Stops the process (SIGSTOP): it answers nothing and closes nothing, as a frozen host. */
  public void pause() {
    signal("STOP");
  }

  /** Lets a paused process run on (SIGCONT). */
  public void resume() {
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

  /** Sends one command and returns its reply as text (see {@link #command(int, String...)}). */
  public String command(String... args) {
    return command(port, args);
  }

  /**
   * Sends one command, on a connection of its own, to whatever listens on {@code port} (a sentinel,
   * a cluster node, a paused server that just came back) and returns the reply as text: a status,
   * bulk string or integer as it is, an array's items one per line, {@code null} for a null bulk
   * string, and an error reply as its message ({@code MOVED 866 127.0.0.1:7001}, say), so a test
   * can look at what the server answered whatever it was.
   */
  static String command(int port, String... args) {
    StatefulRedisConnection<String, String> kept = Commands.OPEN.get(port);
    if (kept != null && kept.isOpen()) {
      try {
        return send(kept, args);
      } catch (RedisCommandExecutionException e) {
        return e.getMessage();
      } catch (RedisException e) {
        Commands.OPEN.remove(port, kept);
        kept.close();
        if (!closedUnderUs(e)) {
          throw new IllegalStateException("redis at port " + port + ": " + e.getMessage(), e);
        }
        // killed and started again, or a sentinel closed its clients (CLIENT KILL TYPE normal):
        // once more on a new connection, as a test that opened one per command would have
      }
    }
    RedisURI uri = RedisURI.builder()
        .withHost("127.0.0.1")
        .withPort(port)
        .withTimeout(Duration.ofSeconds(5))
        .build();
    StatefulRedisConnection<String, String> connection = null;
    try {
      connection = Commands.CLIENT.connect(StringCodec.UTF8, uri);
      String reply = send(connection, args);
      StatefulRedisConnection<String, String> before = Commands.OPEN.put(port, connection);
      if (before != null) {
        before.close();
      }
      return reply;
    } catch (RedisCommandExecutionException e) {
      Commands.OPEN.putIfAbsent(port, connection);
      return e.getMessage();
    } catch (RedisException e) {
      if (connection != null) {
        connection.close();
      }
      throw new IllegalStateException("redis at port " + port + ": " + e.getMessage(), e);
    }
  }

  private static String send(StatefulRedisConnection<String, String> connection, String... args) {
    CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
    for (int i = 1; i < args.length; i++) {
      arguments.add(args[i]);
    }
    // a reply of any shape lands in a list: one item for a status, a string or an integer
    List<Object> reply = connection
        .sync()
        .dispatch(keyword(args[0]), new NestedMultiOutput<>(StringCodec.UTF8), arguments);
    return reply.size() == 1 ? text(reply.get(0)) : text(reply);
  }

  /** A command that failed because its connection closed, not because the server was slow. */
  private static boolean closedUnderUs(RedisException e) {
    return !(e instanceof RedisCommandTimeoutException);
  }

  /**
   * How many times {@code command} (lower case: {@code evalsha}) ran since the server started or
   * its last {@code CONFIG RESETSTAT}, from {@code INFO commandstats}; calls that failed count too.
   */
  public long calls(String command) {
    String prefix = "cmdstat_" + command + ":calls=";
    for (String line : command("INFO", "commandstats").split("\\R")) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
      }
    }
    return 0;
  }

  /**
   * The client every test command goes through (one set of threads for the whole test run), and
   * one connection per port, kept while it stays open: a command costs a round trip, not a connect
   * and a handshake, so tests that move slots key by key do it as fast as a script would.
   */
  private static final class Commands {
    static final RedisClient CLIENT = client();
    static final ConcurrentMap<Integer, StatefulRedisConnection<String, String>> OPEN =
        new ConcurrentHashMap<>();

    private static RedisClient client() {
      RedisClient client = RedisClient.create();
      client.setOptions(ClientOptions.builder()
          // RESP2: replies as a plain client of any server version sees them (a map is a list)
          .protocolVersion(ProtocolVersion.RESP2)
          .autoReconnect(false)
          .socketOptions(
              SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
          .build());
      return client;
    }
  }

  private static ProtocolKeyword keyword(String name) {
    byte[] bytes = name.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
    return new ProtocolKeyword() {
      @Override
      public byte[] getBytes() {
        return bytes;
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  private static String text(Object reply) {
    if (reply instanceof List<?> items) {
      List<String> lines = new ArrayList<>();
      for (Object item : items) {
        lines.add(text(item));
      }
      return String.join("\n", lines);
    }
    if (reply instanceof ByteBuffer bytes) {
      return StringCodec.UTF8.decodeValue(bytes);
    }
    return reply == null ? null : reply.toString();
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
      output = Files.createTempFile("redis-server-" + port + "-", ".log");
      output.toFile().deleteOnExit();
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server on port " + port, e);
    }
    Process started = process;
    reapWhenThisJvmDies(started);
    // the client's threads start outside the wait; the first command of a test JVM still loads
    // Lettuce's and Netty's connection classes, which took over 10 s on a machine with both cores
    // busy, so the wait allows for it (a server that never starts costs the test 30 s, no more)
    Commands.CLIENT.getResources();
    await("redis-server on port " + port + " answers PING")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        // a server that exits (a port taken, a bad argument) fails at once, saying why
        .failFast("redis-server on port " + port + " exited", () -> {
          if (!started.isAlive()) {
            throw new AssertionError(
                "exit " + started.exitValue() + ": " + Files.readString(output).strip());
          }
        })
        .ignoreExceptions()
        .until(() -> "PONG".equals(command("PING")));
  }

  /** The running server's process id (it changes with {@link #restart()}). */
  long pid() {
    return process.pid();
  }

  /**
   * Makes sure {@code server} does not outlive this JVM. A test that closes its servers stops them
   * itself, but a JVM that is killed runs no shutdown hook (PIT kills a minion JVM that runs past
   * its timeout, and the servers its tests started were left running, hundreds after a run). A
   * small shell process watches both: when this JVM is gone it kills the server, and when the
   * server is gone it ends.
   */
  static void reapWhenThisJvmDies(Process server) {
    String watch = "while kill -0 $1 2>/dev/null; do kill -0 $2 2>/dev/null || exit 0; sleep 1;"
        + " done; kill -9 $2 2>/dev/null";
    try {
      new ProcessBuilder(
              "sh",
              "-c",
              watch,
              "sluice-redis-reaper",
              Long.toString(ProcessHandle.current().pid()),
              Long.toString(server.pid()))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      // no sh: the server is still stopped by close(), as before; only a killed JVM leaves it
      System.err.println("cannot watch redis-server " + server.pid() + ": " + e);
    }
  }

  @Override
  public void close() {
    kill();
  }
}
