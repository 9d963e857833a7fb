package dev.sluice.demo;

import java.util.Locale;

/** What a heavy job does ({@code demo.engine}). */
enum Engine {
  /** Compresses generated frames inside the JVM for about {@code cpuMillis}: nothing to install. */
  FRAMES,
  /** Transcodes the posted video with {@code ffmpeg} child processes. */
  FFMPEG;

  static final String KEY = "demo.engine";

  /** @throws IllegalArgumentException naming the key and the value */
  static Engine of(String value) {
    for (Engine engine : values()) {
      if (engine.name().equalsIgnoreCase(value.trim())) {
        return engine;
      }
    }
    throw new IllegalArgumentException(KEY + " must be frames or ffmpeg but was '" + value + "'");
  }

  String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
