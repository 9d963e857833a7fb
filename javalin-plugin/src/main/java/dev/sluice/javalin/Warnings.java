package dev.sluice.javalin;

import dev.sluice.config.ConfigWarnings;
import java.io.PrintStream;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Where Sluice's warnings and refusals go: to the application's SLF4J backend, and, when none is
 * bound, to stderr as well, so that an application without a logging backend (SLF4J then drops
 * every line) still hears of a misspelt key or a refused reload. The stderr copy is written once
 * per kind of message, and the first one comes after a line saying how to route them.
 */
final class Warnings implements ConfigWarnings {

  /** The line written to stderr before the first warning, when no SLF4J backend is bound. */
  static final String NO_BACKEND = "Sluice: no SLF4J backend is bound, so Sluice writes its"
      + " warnings here (once per kind); add one, such as ch.qos.logback:logback-classic or"
      + " org.slf4j:slf4j-simple, to route them to your logs";

  private final Logger log;
  private final PrintStream stderr; // null: a backend is bound, the logger is enough
  private final Set<String> written = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean told = new AtomicBoolean();

  Warnings(Logger log, PrintStream stderr) {
    this.log = log;
    this.stderr = stderr;
  }

  /** Warnings to {@code log}, copied to {@link System#err} when no SLF4J backend is bound. */
  static Warnings to(Logger log) {
    return new Warnings(log, backendBound() ? null : System.err);
  }

  /**
   * Whether SLF4J has a backend. SLF4J 2 falls back to its no-operation factory when it finds no
   * provider; an application that binds {@code slf4j-nop} on purpose has a provider on the class
   * path (found the way SLF4J finds it, through the service loader) and chose silence, so it is
   * left alone.
   */
  static boolean backendBound() {
    if (!(LoggerFactory.getILoggerFactory() instanceof NOPLoggerFactory)) {
      return true;
    }
    if (System.getProperty("slf4j.provider") != null) {
      return true; // named explicitly: chosen, even when it is the no-operation one
    }
    ClassLoader loader = LoggerFactory.class.getClassLoader();
    return ServiceLoader.load(SLF4JServiceProvider.class, loader).stream()
        .findAny()
        .isPresent();
  }

  /** The logger the warnings go to. */
  Logger logger() {
    return log;
  }

  /**
   * Logs {@code message} at warn and, without a backend, writes it to stderr if no message of this
   * {@code kind} was written yet.
   */
  @Override
  public void warn(String kind, String message) {
    warn(kind, message, null);
  }

  /** As {@link #warn(String, String)}, with the cause's stack trace in the log (not on stderr). */
  void warn(String kind, String message, Throwable cause) {
    if (cause == null) {
      log.warn(message);
    } else {
      log.warn(message, cause);
    }
    if (stderr != null && written.add(kind)) {
      synchronized (stderr) {
        if (told.compareAndSet(false, true)) {
          stderr.println(NO_BACKEND);
        }
        stderr.println("Sluice WARN " + message);
      }
    }
  }
}
