package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link DisconnectWatch} used the way an application uses it: a handler on a real server
 * watches its own request while it works, and raw HTTP/1.x clients stay, send more, or hang up.
 * The reports run on a single-thread executor, so they arrive in the order the watch made them; a
 * later client's report, after its own close, shows that an earlier event was already seen.
 */
class DisconnectWatchTest {

  private static final String THREAD = "sluice-disconnect-watch";

  private final ExecutorService reports =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "on-gone"));
  private final DisconnectWatch watch = new DisconnectWatch(reports);
  private final List<String> gone = new CopyOnWriteArrayList<>();
  private final List<String> reportThreads = new CopyOnWriteArrayList<>();
  private final Set<String> watching = ConcurrentHashMap.newKeySet();
  private final Map<String, Runnable> stops = new ConcurrentHashMap<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<Socket> sockets = new ArrayList<>();
  private TestServer server;

  @BeforeEach
  void start() {
    server =
        TestServer.start(cfg -> cfg.properties(ConcurrencyAnswersTest.noEnv()), (app, plugin) -> {
          app.routes.get("/watch/{id}", this::watched);
          app.routes.get("/closed/{id}", ctx -> {
            // the connection is gone before the watch starts (Jetty closed it)
            ServletContextRequest.getServletContextRequest(ctx.req())
                .getConnectionMetaData()
                .getConnection()
                .getEndPoint()
                .close();
            watched(ctx);
          });
        });
  }

  @AfterEach
  void stop() throws IOException {
    release.countDown();
    for (Socket socket : sockets) {
      socket.close();
    }
    server.close();
    watch.close();
    reports.shutdownNow();
  }

  /** Watches its request until the test ends; {@code ?stop} stops the watch at once. */
  private void watched(Context ctx) throws InterruptedException {
    String id = ctx.pathParam("id");
    Runnable stop = watch.watch(ctx.req(), () -> {
      gone.add(id);
      reportThreads.add(Thread.currentThread().getName());
    });
    if (ctx.queryParam("stop") != null) {
      stop.run();
    }
    stops.put(id, stop);
    watching.add(id);
    release.await(5, TimeUnit.SECONDS);
    ctx.result("done");
  }

  private static ConditionFactory soon() {
    return await()
        .atMost(Duration.ofSeconds(3))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5));
  }

  /** A client whose request the handler watches (it returns once the watch was asked). */
  private Socket open(String id) throws IOException {
    return open(id, "GET /watch/" + id + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  }

  private Socket open(String id, String request) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.app.port());
    sockets.add(socket);
    send(socket, request);
    soon().until(() -> watching.contains(id));
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** A client that comes and leaves: when its report is in, every earlier event was seen. */
  private void comesAndLeaves(String id) throws IOException {
    open(id).close();
    soon().until(() -> gone.contains(id));
  }

  @Test
  void aClientThatHangsUpIsReportedOnceOnTheWatchsExecutor() throws IOException {
    open("a").close();

    soon().until(() -> gone.equals(List.of("a")));
    comesAndLeaves("b");
    assertThat(gone).as("one report per hang-up").containsExactly("a", "b");
    assertThat(reportThreads).containsOnly("on-gone");
  }

  @Test
  void ofSeveralWatchedRequestsOnlyTheOneWhoseClientLeftIsReported() throws IOException {
    open("a");
    Socket b = open("b");
    Socket c = open("c");

    b.close();
    soon().until(() -> gone.equals(List.of("b")));
    c.close();
    soon().until(() -> gone.equals(List.of("b", "c")));
    comesAndLeaves("d");
    assertThat(gone).as("a's client is still there").containsExactly("b", "c", "d");
  }

  @Test
  void aStoppedWatchReportsNothing() throws IOException {
    Socket a = open("a");
    comesAndLeaves("b"); // a's watch is in place now
    stops.get("a").run();
    Socket c = open("c"); // watched after the stop
    Socket now = open("now", "GET /watch/now?stop HTTP/1.1\r\nHost: localhost\r\n\r\n");

    a.close();
    now.close();
    c.close();
    soon().until(() -> gone.contains("c"));
    comesAndLeaves("d");
    assertThat(gone).containsExactly("b", "c", "d");
    stops.get("a").run(); // a second stop is harmless
  }

  @Test
  void aClientThatSendsMoreIsNotTakenAsGone() throws IOException {
    Socket a = open("a");
    send(a, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"); // pipelined: waits its turn

    comesAndLeaves("b");
    comesAndLeaves("c");
    assertThat(gone).containsExactly("b", "c");
    assertThat(a.isClosed()).isFalse();
  }

  @Test
  void anHttp10ClientIsWatchedToo() throws IOException {
    open("old", "GET /watch/old HTTP/1.0\r\n\r\n").close();

    soon().until(() -> gone.equals(List.of("old")));
  }

  @Test
  void aConnectionAlreadyClosedWhenWatchedIsReportedAtOnce() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.app.port());
    sockets.add(socket);
    send(socket, "GET /closed/shut HTTP/1.1\r\nHost: localhost\r\n\r\n");

    soon().until(() -> gone.equals(List.of("shut")));
    assertThat(socket.getInputStream().read()).as("the server closed it").isEqualTo(-1);
  }

  @Test
  void watchingAnHttp11RequestStartsTheWatchsThreadAtOnce() throws IOException {
    Set<Thread> before = watchThreads();

    open("a"); // returns once the handler's watch call returned

    Set<Thread> mine = watchThreads();
    mine.removeAll(before);
    assertThat(mine).as("the watch runs before the handler goes on").hasSize(1);
    open("b");
    Set<Thread> still = watchThreads();
    still.removeAll(before);
    assertThat(still).as("one thread, whatever the number of requests").isEqualTo(mine);
  }

  @Test
  void aRequestThatIsNotJettysIsNotWatchedAndItsHandleDoesNothing() {
    HttpServletRequest foreign = (HttpServletRequest) Proxy.newProxyInstance(
        getClass().getClassLoader(),
        new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        });
    Set<Thread> before = watchThreads();

    Runnable handle = watch.watch(foreign, () -> gone.add("foreign"));

    handle.run();
    assertThat(gone).isEmpty();
    Set<Thread> after = watchThreads();
    after.removeAll(before);
    assertThat(after).as("nothing to watch: no thread").isEmpty();
  }

  @Test
  void theWatchsOneThreadIsADaemonAndEndsOnCloseAfterWhichNothingIsWatched() throws IOException {
    Set<Thread> before = watchThreads();
    comesAndLeaves("a");
    comesAndLeaves("b");
    Set<Thread> mine = watchThreads();
    mine.removeAll(before);
    assertThat(mine).as("one thread for the watch").singleElement().matches(Thread::isDaemon);

    watch.close();

    Thread thread = mine.iterator().next();
    soon().until(() -> !thread.isAlive());
    Socket late = open("late");
    Set<Thread> now = watchThreads();
    now.removeAll(before);
    assertThat(now).as("no thread watches for the closed watch").isEmpty();
    late.close();
    stops.get("late").run();
    assertThat(gone).containsExactly("a", "b");
  }

  /** The watch threads of this JVM (other tests' servers have their own). */
  private static Set<Thread> watchThreads() {
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(THREAD) && t.isAlive()) {
        threads.add(t);
      }
    }
    return threads;
  }
}
