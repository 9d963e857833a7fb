package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;

/**
 * Bad properties at scale: whatever a properties file holds, it resolves to settings or fails with
 * {@link SluiceConfigException} naming the key (with its value and source); nothing else escapes.
 * A value that parses renders back to text that parses to the same value. The corpus
 * (src/test/resources/dev/sluice/config/PropertiesFuzzTestInputs/) is replayed as a plain test
 * without JAZZER_FUZZ=1.
 */
@Tag("fuzz")
class PropertiesFuzzTest {

  private static final Path FILE = tempFile();

  private static final Map<String, String> NONE = Map.of();

  @FuzzTest(maxDuration = "60m", maxExecutions = 1_000_000)
  void anyPropertiesFileResolvesOrFailsNamingTheKey(byte[] data) throws IOException {
    Files.write(FILE, data);
    try {
      SluiceProperties p =
          SluiceProperties.builder().env(NONE).system(NONE).file(FILE).build();
      SluiceSettings s = SluiceSettings.resolve(p, Map.of(), CpuSignals.JVM);
      UnknownKeys.check(p, s.limiters().keySet(), s.strict(), (kind, message) -> {});
    } catch (SluiceConfigException e) {
      assertThat(e.key()).isNotBlank();
      assertThat(e.problem()).isNotBlank();
    }
  }

  /**
   * The first byte picks a key (a plugin-wide one or a limiter's, for limiter {@code api}), the
   * rest is its value as written after {@code =}.
   */
  @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
  void anyValueOfAnyKeyParsesToAValueThatRendersBackOrFailsNamingTheKey(byte[] data) {
    if (data.length == 0) {
      return;
    }
    int pick = Byte.toUnsignedInt(data[0]) % (SluiceKeys.ALL.size() + LimiterKeys.ALL.size());
    String raw = new String(Arrays.copyOfRange(data, 1, data.length), StandardCharsets.UTF_8);
    if (pick < SluiceKeys.ALL.size()) {
      Key<?> key = SluiceKeys.ALL.get(pick);
      roundTrip(key.name(), raw, text -> key.parse(key.name(), text, "fuzz"));
    } else {
      LimiterKey<?> key = LimiterKeys.ALL.get(pick - SluiceKeys.ALL.size());
      String name = LimiterConfig.property("api", key);
      roundTrip(name, raw, text -> key.parse(name, text, "fuzz"));
    }
  }

  private static void roundTrip(String name, String raw, Function<String, Object> parse) {
    Object value;
    try {
      value = parse.apply(raw);
    } catch (SluiceConfigException e) {
      assertThat(e.key()).isEqualTo(name);
      assertThat(e.value()).isEqualTo(raw);
      assertThat(e.source()).isEqualTo("fuzz");
      assertThat(e.problem()).isNotBlank();
      return;
    }
    // blank text of an optional key is "unset", a value no text writes
    String rendered = raw.isBlank() ? null : render(value);
    if (rendered != null) {
      assertThat(parse.apply(rendered))
          .as("%s=%s renders as %s", name, raw, rendered)
          .isEqualTo(value);
    }
  }

  /** The text that writes {@code value}; null for a type with no one text form. */
  private static String render(Object value) {
    if (value instanceof Enum<?> e) {
      return ValueParser.id(e);
    }
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Boolean
        || value instanceof Double
        || value instanceof Duration
        || value instanceof URI
        || value instanceof String) {
      return value.toString();
    }
    return null;
  }

  /**
   * In memory where the machine has a tmpfs at /dev/shm: the file is written once per execution, and
   * on a disk that write cost more than the parsing it feeds.
   */
  private static Path tempFile() {
    try {
      Path shm = Path.of("/dev/shm");
      Path file = Files.isDirectory(shm) && Files.isWritable(shm)
          ? Files.createTempFile(shm, "sluice-fuzz", ".properties")
          : Files.createTempFile("sluice-fuzz", ".properties");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
