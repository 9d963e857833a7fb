package dev.sluice.peers;

import dev.sluice.demo.DemoSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The demo's settings as a user gives them: a {@code --config} file, on a free port. */
final class Demo {

  private Demo() {}

  static DemoSettings settings(Path dir, Map<String, String> properties) {
    Map<String, String> all = new HashMap<>(Map.of("server.port", "0"));
    all.putAll(properties);
    try {
      Path file = Files.writeString(
          Files.createTempFile(dir, "demo", ".properties"),
          all.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining("\n")));
      return DemoSettings.load(new String[] {"--config", file.toString()});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
