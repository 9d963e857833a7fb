package dev.sluice.demo;

/** A target rendition of the {@code ffmpeg} engine, named by its height ({@code height=240|360|720}). */
enum Rendition {
  P240(240),
  P360(360),
  P720(720);

  static final String PARAMETER = "height";

  final int height;

  Rendition(int height) {
    this.height = height;
  }

  /** 16:9 width, even as libx264's 4:2:0 needs; what the cost estimate assumes before ffmpeg scales. */
  int width() {
    return (height * 16 / 9 + 1) / 2 * 2;
  }

  /** @throws BadRequest naming the parameter and the value */
  static Rendition of(String value) {
    if (value != null) {
      for (Rendition r : values()) {
        if (Integer.toString(r.height).equals(value.trim())) {
          return r;
        }
      }
    }
    throw new BadRequest(PARAMETER, value, "must be 240, 360 or 720");
  }
}
