package dev.sluice.ratelimit;

/** A request the service cannot decide (answered {@code INVALID_ARGUMENT} with this message). */
final class BadRequestException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  BadRequestException(String message) {
    super(message);
  }
}
