package dev.sluice.javalin;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What a class's logger logs during each test, for tests that check the warnings a user reads:
 * register it with {@code @RegisterExtension}; it listens from before each test to after it.
 */
final class LogCapture implements BeforeEachCallback, AfterEachCallback {

  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  LogCapture(Class<?> source) {
    this.logger = (Logger) LoggerFactory.getLogger(source);
  }

  /**
   * Listens to the logger of this name instead of one class's: {@link
   * org.slf4j.Logger#ROOT_LOGGER_NAME} hears every logger whose events reach the root.
   */
  LogCapture(String loggerName) {
    this.logger = (Logger) LoggerFactory.getLogger(loggerName);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    appender.list.clear();
    appender.start();
    logger.addAppender(appender);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.detachAppender(appender);
    appender.stop();
  }

  /** Every event logged so far in this test. */
  List<ILoggingEvent> events() {
    return appender.list;
  }

  /** The messages of the warnings logged so far in this test. */
  List<String> warnings() {
    return appender.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** The logger listened to, for a test that lowers its level for a moment. */
  Logger logger() {
    return logger;
  }
}
