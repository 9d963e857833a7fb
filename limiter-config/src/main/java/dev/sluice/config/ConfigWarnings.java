package dev.sluice.config;

/**
 * Where a configuration warning goes when it is not an error ({@code sluice.strict=false}): each
 * door passes its own (the Javalin plugin its SLF4J-or-stderr warnings), so this module needs no
 * logging library.
 */
@FunctionalInterface
public interface ConfigWarnings {

  /**
   * Reports one warning.
   *
   * @param kind what the warning is about, so a door can say each kind once
   * @param message the whole warning, naming key, value and source
   */
  void warn(String kind, String message);

  /** Warnings through {@link System.Logger}, for an application with no door of its own. */
  static ConfigWarnings systemLogger() {
    System.Logger log = System.getLogger("dev.sluice.config");
    return (kind, message) -> log.log(System.Logger.Level.WARNING, message);
  }
}
