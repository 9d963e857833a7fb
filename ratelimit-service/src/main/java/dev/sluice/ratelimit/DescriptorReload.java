package dev.sluice.ratelimit;

import dev.sluice.rules.RulesFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The descriptors in force, and their reload: {@link #poll} reads the file (or the folder's files)
 * again and, when the texts differ from those in force, parses them and puts them in force. A
 * version that does not parse changes nothing: the descriptors in force stay, and the error (file,
 * line, field) is reported once per version, not on every poll. The texts are compared, not the
 * modification times: a rewrite within one tick of the file system's clock still counts, and a
 * touched file with the same text needs nothing. A file added to or removed from the folder is a
 * change.
 */
final class DescriptorReload implements Supplier<DescriptorConfig> {

  /** What one poll found. */
  sealed interface Outcome {}

  /** The texts in force, or a version already refused. */
  record Unchanged() implements Outcome {}

  /** A new version, in force now. */
  record Applied(DescriptorConfig config) implements Outcome {}

  /** A new version that could not be read or parsed; the descriptors in force stay. */
  record Refused(RulesFileException reason) implements Outcome {}

  private final Path path;
  private volatile DescriptorConfig inForce;
  private Map<String, String> texts; // guarded by this: the texts in force
  private Object refused; // guarded by this: the version last refused (its texts, or its error)

  private DescriptorReload(Path path, Map<String, String> texts, DescriptorConfig inForce) {
    this.path = path;
    this.texts = texts;
    this.inForce = inForce;
  }

  /**
   * Reads {@code path} (a file, or a folder of {@code .yaml} and {@code .yml} files).
   *
   * @throws RulesFileException naming the file, the line and the field at fault
   */
  static DescriptorReload load(Path path) throws RulesFileException {
    Map<String, String> texts = DescriptorConfig.texts(path);
    return new DescriptorReload(path, texts, DescriptorConfig.parse(texts));
  }

  /** The descriptors in force. */
  @Override
  public DescriptorConfig get() {
    return inForce;
  }

  /** The file or folder read. */
  Path path() {
    return path;
  }

  /** Reads the descriptors again and puts a changed version in force; never throws. */
  synchronized Outcome poll() {
    Map<String, String> next;
    try {
      next = DescriptorConfig.texts(path);
    } catch (RulesFileException e) {
      return refuse(e.getMessage(), e);
    }
    if (next.equals(texts)) {
      refused = null; // back to the version in force: a later failure is news again
      return new Unchanged();
    }
    if (next.equals(refused)) {
      return new Unchanged();
    }
    try {
      DescriptorConfig config = DescriptorConfig.parse(next);
      texts = next;
      refused = null;
      inForce = config;
      return new Applied(config);
    } catch (RulesFileException e) {
      return refuse(next, e);
    }
  }

  private Outcome refuse(Object version, RulesFileException e) {
    if (Objects.equals(version, refused)) {
      return new Unchanged();
    }
    refused = version;
    return new Refused(e);
  }
}
