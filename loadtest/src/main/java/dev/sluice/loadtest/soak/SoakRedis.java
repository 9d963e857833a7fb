package dev.sluice.loadtest.soak;

import dev.sluice.loadtest.engine.ChildProcesses;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The soak's (and the transitions') Redis: a {@code redis-server} from PATH on a free loopback port, without persistence,
 * and the few commands the soak reads it with, through Lettuce as any Redis user would (the loadtest
 * talks to Redis only to watch it, as an operator would; the nodes use Sluice's own connection).
 */
public final class SoakRedis implements AutoCloseable {

  private volatile Process process;
  private final int port;
  private final Path log;
  private final RedisClient client;
  private volatile StatefulRedisConnection<String, String> connection;

  private SoakRedis(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.client = RedisClient.create(RedisURI.builder()
        .withHost("127.0.0.1")
        .withPort(port)
        .withTimeout(Duration.ofSeconds(5))
        .build());
    client.setOptions(ClientOptions.builder()
        // RESP2: INFO and CONFIG answer as plain text and lists, as redis-cli shows them
        .protocolVersion(ProtocolVersion.RESP2)
        .socketOptions(
            SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
        .build());
  }

  /**
   * Starts it and waits until it answers PING.
   *
   * @throws IOException naming the binary when it is not on PATH, or with the log when it exits
   */
  public static SoakRedis start(Path log) throws IOException, InterruptedException {
    if (!onPath("redis-server")) {
      throw new IOException("this scenario starts its own Redis, but redis-server is not on "
          + "PATH (apt-get install redis-server)");
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Process process = launch(port, log);
    SoakRedis redis = new SoakRedis(process, port, log);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException(
            "redis-server exited with " + process.exitValue() + "; its log: " + log);
      }
      try {
        redis.connection = redis.client.connect();
        if ("PONG".equals(redis.connection.sync().ping())) {
          return redis;
        }
      } catch (RedisException notYet) {
        // still starting
      }
      Thread.sleep(50); // polling a process we do not control; no event to wait on
    }
    redis.close();
    throw new IOException("redis-server did not answer within 10 s; its log: " + log);
  }

  private static Process launch(int port, Path log) throws IOException {
    return ChildProcesses.stopWithThisJvm(new ProcessBuilder(
            "redis-server",
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start());
  }

  /** The process id of the running {@code redis-server} (the jepsen scenario stops and resumes it). */
  public long pid() {
    return process.pid();
  }

  /** Kills it ({@code kill -9}): every key is gone, nothing was saved. */
  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  /**
   * Starts it again, empty, on the same port, after {@link #kill()}; the watching connection
   * reconnects by itself.
   */
  public void restart() throws IOException {
    process = launch(port, log);
  }

  /** Its port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The URI the nodes are given. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** {@code used_memory} of {@code INFO memory}, in bytes. */
  long usedMemory() throws IOException {
    return infoField(command("INFO", "memory"), "used_memory");
  }

  /** How many keys the database holds. */
  long keys() throws IOException {
    return Long.parseLong(command("DBSIZE"));
  }

  /** A field of an INFO answer; -1 when it is missing. */
  public static long infoField(String info, String field) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    return -1;
  }

  /** One command; the answer's text (a bulk string, a status, an integer, a list's items by line). */
  public String command(String... args) throws IOException {
    CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
    for (int i = 1; i < args.length; i++) {
      arguments.add(args[i]);
    }
    byte[] name = args[0].toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
    ProtocolKeyword keyword = new ProtocolKeyword() {
      @Override
      public byte[] getBytes() {
        return name;
      }

      @Override
      public String toString() {
        return args[0];
      }
    };
    try {
      // a reply of any shape lands in a list: one item for a status, a string or an integer
      List<Object> reply =
          connection.sync().dispatch(keyword, new NestedMultiOutput<>(StringCodec.UTF8), arguments);
      return reply.size() == 1
          ? String.valueOf(reply.get(0))
          : reply.stream().map(String::valueOf).collect(Collectors.joining("\n"));
    } catch (RedisException e) {
      throw new IOException("Redis answered " + e.getMessage() + " to " + args[0], e);
    }
  }

  private static boolean onPath(String binary) {
    List<String> dirs = new ArrayList<>(
        List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    return dirs.stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, binary)));
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
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
