package dev.sluice.loadtest.engine;

import java.util.Locale;

/** Which door of the demo the transcode jobs go through ({@code --door}). */
public enum Door {
  /** {@code POST /api/transcode}, the JDK's HTTP client. */
  HTTP,
  /**
   * The demo's gRPC door ({@code demo.grpc.port}): {@code transcode.Transcoder/Transcode} over
   * grpc-java and Netty (see {@link GrpcTransport}); every other request stays HTTP.
   */
  GRPC;

  /** The command-line word, e.g. {@code grpc}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The door a command-line word names.
   *
   * @throws IllegalArgumentException naming the option and the value
   */
  public static Door parse(String option, String value) {
    for (Door door : values()) {
      if (door.id().equals(value)) {
        return door;
      }
    }
    throw new IllegalArgumentException(option + " must be http or grpc but was '" + value + "'");
  }
}
