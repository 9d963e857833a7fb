package dev.sluice.rules;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A System.Logger that keeps what it was told, to check what is logged and how often. */
final class RecordingLogger implements System.Logger {

  final List<String> messages = new CopyOnWriteArrayList<>();

  @Override
  public String getName() {
    return "recording";
  }

  @Override
  public boolean isLoggable(Level level) {
    return true;
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
    messages.add(level + " " + msg);
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String format, Object... params) {
    messages.add(level + " " + java.text.MessageFormat.format(format, params));
  }
}
