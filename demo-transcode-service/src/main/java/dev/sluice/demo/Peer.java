package dev.sluice.demo;

import io.javalin.config.JavalinConfig;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Another project's limiter that a measurement puts in front of the demo's endpoints, selected by a
 * {@code demo.*} key ({@link LimiterPeer#KEY}, {@link OverheadPeer#KEY}). The demo knows the keys,
 * not the peers: they are found through {@link ServiceLoader}, and only the load test's class path
 * carries any (module {@code loadtest-peers}), so the demo itself depends on no other limiter.
 */
public interface Peer {

  /** The key whose values select these peers, e.g. {@code demo.limiter-peer}. */
  String key();

  /** The values this provider answers to, as written in the property, e.g. {@code netflix-vegas}. */
  List<String> ids();

  /**
   * Puts the peer {@code id} in front of its path; called inside {@code Javalin.create}, after the
   * parameter checks and before the routes.
   *
   * @param settings the demo's layered settings, for the peer's own {@code demo.*} keys
   * @param cores the machine's cores
   * @return what the peer adds to the plugin's {@code /sluice} status (identity: nothing)
   * @throws IllegalArgumentException naming the peer's key and the value that is wrong
   */
  UnaryOperator<String> install(
      String id, JavalinConfig config, Function<String, Optional<String>> settings, int cores);

  /** The provider of {@code id} for {@code key}, or empty. */
  static Optional<Peer> find(String key, String id) {
    return all(key).filter(p -> p.ids().contains(id)).findFirst();
  }

  /**
   * Refuses a value of {@code key} that is neither {@code none} nor a peer on the class path.
   *
   * @throws IllegalArgumentException naming the key, the value and the choices
   */
  static String check(String key, String value) {
    String id = value.trim().toLowerCase(java.util.Locale.ROOT);
    if (id.isEmpty() || id.equals("none") || find(key, id).isPresent()) {
      return id.isEmpty() ? "none" : id;
    }
    throw new IllegalArgumentException(key + "=" + value + " is not one of "
        + Stream.concat(Stream.of("none"), all(key).flatMap(p -> p.ids().stream()))
            .collect(Collectors.joining("|"))
        + " (the peers are a measurement aid on the load test's class path, not part of the demo:"
        + " java -cp loadtest/target/loadtest.jar dev.sluice.demo.TranscodeService)");
  }

  private static Stream<Peer> all(String key) {
    return ServiceLoader.load(Peer.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.key().equals(key));
  }
}
