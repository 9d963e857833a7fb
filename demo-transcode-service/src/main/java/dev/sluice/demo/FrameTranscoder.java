package dev.sluice.demo;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.zip.Deflater;

/**
 * The CPU work of a job: compresses generated video frames with {@link Deflater}, as many as make
 * about the asked milliseconds of CPU on this machine.
 *
 * <p>Real work, not a sleep: a sleeping "transcode" would never raise the CPU, and the scenario is
 * about CPU. The frames-per-millisecond rate is measured once at start-up on the calling thread's CPU
 * clock, after warming up until it stops changing, so a job of N ms costs N ms of CPU on an idle
 * core; on a busy machine it takes longer in wall time, which is exactly what the limiter is meant to prevent.
 */
public final class FrameTranscoder {

  /** A 64x64 luma block with a gradient, edges and noise: compressible, but not trivially. */
  static final int FRAME_BYTES = 64 * 1024;

  private static final int FRAMES = 8;

  /** Calibration rounds of {@link #ROUND_NANOS} each: at most 6, ~0.6 s of start-up. */
  private static final int MAX_ROUNDS = 6;

  private static final long ROUND_NANOS = 100_000_000L;
  /** Two rounds in a row this close (relative) mean the rate has settled. */
  private static final double TOLERANCE = 0.03;

  private final byte[][] frames = new byte[FRAMES][];
  private final double framesPerMilli;
  private final boolean measured;

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
    this.measured = !(framesPerMilli > 0);
    this.framesPerMilli = measured ? measureFramesPerMilli() : framesPerMilli;
  }

  /**
   * Generates the frames and measures how many one core compresses per millisecond, once the rate
   * has settled (0.2 to 0.6 s of CPU).
   */
  public static FrameTranscoder calibrated() {
    return new FrameTranscoder(42, 0);
  }

  /**
   * With a known rate: tests that must not depend on the machine, and services that must all do
   * the same work per job ({@code demo.frames-per-milli}).
   *
   * @throws IllegalArgumentException if the rate is not above 0
   */
  public static FrameTranscoder withRate(double framesPerMilli) {
    if (!(framesPerMilli > 0 && Double.isFinite(framesPerMilli))) {
      throw new IllegalArgumentException(
          "framesPerMilli must be above 0 but was " + framesPerMilli);
    }
    return new FrameTranscoder(42, framesPerMilli);
  }

  public double framesPerMilli() {
    return framesPerMilli;
  }

  /** Whether {@link #framesPerMilli()} was measured at start (else given). */
  public boolean measured() {
    return measured;
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
    // CPU time, not wall time: on a shared machine the wall clock counts other processes' turns too
    LongSupplier clock = cpuClock ? threads::getCurrentThreadCpuTime : System::nanoTime;
    return settledRate(() -> round(clock), MAX_ROUNDS, TOLERANCE);
  }

  /** Frames per millisecond over one round of about 100 ms of CPU. */
  private double round(LongSupplier clock) {
    long start = clock.getAsLong();
    int done = 0;
    long elapsed;
    do {
      compress(10, done);
      done += 10;
      elapsed = clock.getAsLong() - start;
    } while (elapsed < ROUND_NANOS);
    return done / (elapsed / 1e6);
  }

  /**
   * Measures rounds until two in a row agree within {@code tolerance} (the JIT and the CPU caches
   * have settled) or {@code maxRounds} have run, and answers the mean of the last two. The first
   * rounds run while the JVM is still compiling and come out slow; calibrating on them made every job
   * shorter than asked (a 200 ms job measured ~162 ms).
   */
  static double settledRate(DoubleSupplier round, int maxRounds, double tolerance) {
    if (maxRounds < 2) {
      throw new IllegalArgumentException("maxRounds must be at least 2, was " + maxRounds);
    }
    double previous = round.getAsDouble();
    double last = previous;
    for (int r = 1; r < maxRounds; r++) {
      previous = last;
      last = round.getAsDouble();
      if (Math.abs(last - previous) <= tolerance * Math.max(last, previous)) {
        break;
      }
    }
    return (previous + last) / 2;
  }
}
