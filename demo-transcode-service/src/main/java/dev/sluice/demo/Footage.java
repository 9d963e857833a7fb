package dev.sluice.demo;

/**
 * What {@code ffprobe} found in an upload: its first video stream's size and frame rate, and the
 * container's duration.
 */
record Footage(double durationSeconds, int width, int height, double frameRate) {

  /**
   * The job's cost estimate, known before the transcode starts: megapixels through the codecs,
   * {@code durationSeconds x frameRate x (source pixels + rendition pixels) / 10^6}. Decoding costs
   * by the source's pixels and encoding by the rendition's, frame by frame, so a 4 s 360p clip to
   * 240p is 4 x 25 x (230,400 + 102,240) / 10^6 = 33.3 and the same clip to 720p 115.2. A relative
   * figure to weigh jobs against each other (what a cost-aware limiter takes), not a prediction of
   * milliseconds: those depend on the machine and {@code demo.ffmpeg.preset}.
   */
  double costEstimate(Rendition rendition) {
    double pixels = (double) width * height + (double) rendition.width() * rendition.height;
    return durationSeconds * frameRate * pixels / 1e6;
  }
}
