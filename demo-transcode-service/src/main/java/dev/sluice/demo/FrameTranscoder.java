package dev.sluice.demo;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.zip.Deflater;

/**
 * The CPU work of a job: compresses generated video frames with {@link Deflater}, as many as make
 * about the asked milliseconds of CPU on this machine.
 *
 * <p>Real work, not a sleep: a sleeping "transcode" would never raise the CPU, and the scenario is
 * about CPU. The frames-per-millisecond rate is measured once at start-up on the calling thread's CPU
 * clock, so a job of N ms costs N ms of CPU on an idle core; on a busy machine it takes longer in
 * wall time, which is exactly what the limiter is meant to prevent.
 */
public final class FrameTranscoder {

  /** A 64x64 luma block with a gradient, edges and noise: compressible, but not trivially. */
  static final int FRAME_BYTES = 64 * 1024;

  private static final int FRAMES = 8;

  private final byte[][] frames = new byte[FRAMES][];
  private final double framesPerMilli;

  private FrameTranscoder(long seed, double framesPerMilli) {
    Random random = new Random(seed);
    for (int f = 0; f < FRAMES; f++) {
      byte[] frame = new byte[FRAME_BYTES];
      for (int i = 0; i < FRAME_BYTES; i++) {
        int x = i % 256;
        int y = i / 256;
        int gradient = (x + y + f * 7) & 0xff;
        int edge = ((x / 32 + y / 32) % 2) * 40;
        frame[i] = (byte) (gradient + edge + random.nextInt(24));
      }
      frames[f] = frame;
    }
    this.framesPerMilli = framesPerMilli > 0 ? framesPerMilli : measureFramesPerMilli();
  }

  /** Generates the frames and measures how many one core compresses per millisecond (~0.3 s). */
  public static FrameTranscoder calibrated() {
    return new FrameTranscoder(42, 0);
  }

  /** With a known rate, for tests that must not depend on the machine. */
  static FrameTranscoder withRate(double framesPerMilli) {
    return new FrameTranscoder(42, framesPerMilli);
  }

  public double framesPerMilli() {
    return framesPerMilli;
  }

  /** How many frames make {@code cpuMillis} of CPU. */
  public int framesFor(int cpuMillis) {
    return Math.max(1, (int) Math.round(cpuMillis * framesPerMilli));
  }

  /**
   * Compresses {@code frames} frames.
   *
   * @return the compressed size, so the work cannot be optimised away
   */
  public long compress(int frames, long jobId) {
    Deflater deflater = new Deflater(6);
    byte[] out = new byte[FRAME_BYTES + 1024];
    long total = 0;
    try {
      for (int i = 0; i < frames; i++) {
        deflater.reset();
        deflater.setInput(this.frames[(int) ((jobId + i) % FRAMES)]);
        deflater.finish();
        while (!deflater.finished()) {
          total += deflater.deflate(out);
        }
      }
    } finally {
      deflater.end();
    }
    return total;
  }

  private double measureFramesPerMilli() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    boolean cpuClock = threads.isCurrentThreadCpuTimeSupported();
    compress(20, 0); // warm up the native zlib path and the JIT
    // CPU time, not wall time: on a shared machine the wall clock counts other processes' turns too
    long start = cpuClock ? threads.getCurrentThreadCpuTime() : System.nanoTime();
    int done = 0;
    long elapsed;
    do {
      compress(10, done);
      done += 10;
      elapsed = (cpuClock ? threads.getCurrentThreadCpuTime() : System.nanoTime()) - start;
    } while (elapsed < 300_000_000L);
    return done / (elapsed / 1e6);
  }
}
