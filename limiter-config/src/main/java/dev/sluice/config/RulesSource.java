package dev.sluice.config;

import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFile;
import dev.sluice.rules.RulesFileException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds {@code sluice.rules.file}: {@code classpath:NAME} reads a resource (not reloadable); a
 * relative path is tried against the working directory, then against the properties file's folder.
 */
public final class RulesSource {

  public static final String CLASSPATH = "classpath:";
  private static final String KEY = SluiceKeys.RULES_FILE.name();

  private RulesSource() {}

  /** The file to read and poll; empty for a classpath resource. */
  public static Optional<Path> resolve(Path file, Optional<Path> propertiesFile) {
    if (file.toString().startsWith(CLASSPATH)) {
      return Optional.empty();
    }
    if (file.isAbsolute() || Files.exists(file) || propertiesFile.isEmpty()) {
      return Optional.of(file);
    }
    Path parent = propertiesFile.get().toAbsolutePath().getParent();
    Path sibling = parent == null ? file : parent.resolve(file);
    return Optional.of(Files.exists(sibling) ? sibling : file);
  }

  /**
   * Reads the rules file (or resource).
   *
   * @param source where {@code sluice.rules.file} was set, named in errors
   */
  public static RuleSet load(Path file, Optional<Path> propertiesFile, String source) {
    String name = file.toString();
    try {
      if (name.startsWith(CLASSPATH)) {
        String resource = name.substring(CLASSPATH.length());
        try (InputStream in = RulesSource.class.getClassLoader().getResourceAsStream(resource)) {
          if (in == null) {
            throw new SluiceConfigException(KEY, name, source, "no such classpath resource");
          }
          return RulesFile.parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
      Path path = resolve(file, propertiesFile).orElseThrow();
      if (!Files.isRegularFile(path)) {
        throw new SluiceConfigException(KEY, name, source, "no such file");
      }
      return RulesFile.load(path);
    } catch (RulesFileException e) {
      throw new SluiceConfigException(KEY, name, source, e.getMessage());
    } catch (IOException e) {
      throw new SluiceConfigException(KEY, name, source, "cannot be read: " + e);
    }
  }
}
