package dev.sluice.ratelimit;

import java.time.Duration;

/** Between {@code java.time.Duration} and protobuf's {@code google.protobuf.Duration}. */
final class Protos {

  private Protos() {}

  static com.google.protobuf.Duration duration(Duration d) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(d.getSeconds())
        .setNanos(d.getNano())
        .build();
  }

  static Duration duration(com.google.protobuf.Duration d) {
    return Duration.ofSeconds(d.getSeconds(), d.getNanos());
  }
}
