package dev.sluice.loadtest.soak;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The soak's (and the transitions') Redis: a {@code redis-server} from PATH on a free loopback port, without persistence,
 * and the few commands the soak reads it with, over a plain socket (the loadtest talks to Redis
 * only to watch it; the nodes use Sluice's own client).
 */
public final class SoakRedis implements AutoCloseable {

  private final Process process;
  private final int port;

  private SoakRedis(Process process, int port) {
    this.process = process;
    this.port = port;
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
    Process process = new ProcessBuilder(
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
        .redirectOutput(log.toFile())
        .start();
    SoakRedis redis = new SoakRedis(process, port);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException(
            "redis-server exited with " + process.exitValue() + "; its log: " + log);
      }
      try {
        if ("PONG".equals(redis.command("PING"))) {
          return redis;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.sleep(50); // polling a process we do not control; no event to wait on
    }
    redis.close();
    throw new IOException("redis-server did not answer within 10 s; its log: " + log);
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

  /** One command; the answer's text (a bulk string, a status, or an integer). */
  public String command(String... args) throws IOException {
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
      InputStream in = socket.getInputStream();
      String first = line(in);
      if (first.startsWith("-")) {
        throw new IOException("Redis answered " + first.substring(1) + " to " + args[0]);
      }
      if (first.startsWith("$")) {
        int length = Integer.parseInt(first.substring(1));
        return length < 0
            ? null
            : new String(in.readNBytes(length + 2), 0, length, StandardCharsets.UTF_8);
      }
      return first.substring(1);
    }
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  private static boolean onPath(String binary) {
    List<String> dirs = new ArrayList<>(
        List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    return dirs.stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, binary)));
  }

  @Override
  public void close() {
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
