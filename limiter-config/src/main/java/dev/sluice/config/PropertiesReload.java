package dev.sluice.config;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The reload of the properties, for a door to apply: it re-reads the file between the same other
 * layers ({@link SluiceProperties#reload()}), compares the values with those in force, and
 * resolves a changed version the way the door resolved the first one. The door applies what {@link
 * #poll} returns and says so ({@link #applied}, or {@link #failed} when it could not); what
 * changed per limiter is {@link LimiterConfig#restartChanges} and the core's {@code reconfigure}
 * report.
 *
 * <p>The values are compared, not the file's modification time: a file-system clock ticks coarsely
 * (a rewrite of the same size within one tick looks unchanged), and a touched file with the same
 * values needs nothing. A version that was refused, or a reason the file could not be read, is
 * reported once, not on every poll.
 *
 * @param <S> what the door resolves properties into
 */
public final class PropertiesReload<S> {

  /** What one poll found. */
  public interface Outcome {}

  /** Nothing new: the values in force, or a version or a reason already reported. */
  public record Unchanged() implements Outcome {}

  /** The file could not be read (reported once per reason); the values in force stay. */
  public record Unreadable(String reason) implements Outcome {}

  /** A changed version with a value that is wrong (the message names key, value and source). */
  public record Refused(String reason) implements Outcome {}

  /**
   * A changed version, resolved: apply it, then call {@link #applied}.
   *
   * @param <S> what the door resolves properties into
   */
  public record Changed<S>(SluiceProperties properties, S settings) implements Outcome {}

  private final Function<SluiceProperties, S> resolve;
  private SluiceProperties inForce; // guarded by this
  private Map<String, String> refused; // the values last refused: reported once
  private String unreadable; // why the file could not be read last time: reported once

  /**
   * @param inForce the properties the door started with
   * @param resolve what the door makes of properties; throws {@link SluiceConfigException} for a
   *     wrong value
   */
  public PropertiesReload(SluiceProperties inForce, Function<SluiceProperties, S> resolve) {
    this.inForce = Objects.requireNonNull(inForce, "inForce");
    this.resolve = Objects.requireNonNull(resolve, "resolve");
  }

  /** The properties in force: those at start, as changed by applied reloads. */
  public synchronized SluiceProperties inForce() {
    return inForce;
  }

  /** Reads the file again and says what is new; never throws. */
  public synchronized Outcome poll() {
    SluiceProperties next;
    try {
      next = inForce.reload();
    } catch (RuntimeException e) {
      String why = String.valueOf(e.getMessage());
      if (why.equals(unreadable)) {
        return new Unchanged();
      }
      unreadable = why;
      return new Unreadable(why);
    }
    unreadable = null;
    if (next.asMap().equals(inForce.asMap()) || next.asMap().equals(refused)) {
      return new Unchanged();
    }
    try {
      return new Changed<>(next, resolve.apply(next));
    } catch (RuntimeException e) {
      refused = next.asMap();
      return new Refused(String.valueOf(e.getMessage()));
    }
  }

  /**
   * Reads the file again and resolves it, changed or not (an explicit reload).
   *
   * @throws SluiceConfigException when the file cannot be read or a value is wrong
   */
  public synchronized Changed<S> read() {
    SluiceProperties next = inForce.reload();
    return new Changed<>(next, resolve.apply(next));
  }

  /** The door applied {@code change}: its properties are in force now. */
  public synchronized void applied(Changed<S> change) {
    inForce = change.properties();
    refused = null;
  }

  /** The door could not apply {@code change}: the values in force stay, the version is refused. */
  public synchronized void failed(Changed<S> change) {
    refused = change.properties().asMap();
  }
}
