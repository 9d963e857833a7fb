package dev.sluice.redis;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The warnings one logger writes while a test runs, for behaviour whose only trace is a warning:
 * {@code try (LoggedWarnings warnings = LoggedWarnings.of(RedisStores.class)) { ... }}.
 */
final class LoggedWarnings implements AutoCloseable {

  private final Logger log;
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();

  private LoggedWarnings(Logger log) {
    this.log = log;
    events.start();
    log.addAppender(events);
  }

  static LoggedWarnings of(Class<?> logger) {
    return new LoggedWarnings((Logger) LoggerFactory.getLogger(logger));
  }

  /** The warnings written so far, formatted, oldest first. */
  List<String> messages() {
    // AppenderBase appends under the appender's own lock
    synchronized (events) {
      return events.list.stream()
          .filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage)
          .toList();
    }
  }

  @Override
  public void close() {
    log.detachAppender(events);
  }
}
