package dev.sluice.demo;

import io.javalin.http.Context;
import java.util.Locale;

/**
 * The cost a client declares for its footage before the upload, so a cost-aware limiter
 * ({@code sluice.limiters.transcode.cost=header:X-Footage-Cost}) can weigh the job when it admits
 * it, long before the probe can: {@code ceil(seconds x height / 3600)}, at least 1, the footage's
 * duration times its height in units of 10 s of 360p (a minute of 720p is 12). The client knows
 * both of its own file; the service checks the declaration against its probe of the upload and
 * refuses one far from it, so a client cannot get a long job admitted as a short one.
 *
 * @param header the header read ({@code demo.ffmpeg.cost-header}); empty: no declaration is read
 */
record DeclaredCost(String header) {

  /** Seconds x lines of one unit: 10 s of 360p. */
  static final int UNIT = 3600;

  /** Request attribute: the declared units, an {@code Integer}, once the header was read. */
  static final String DECLARED = "demo.declaredCost";

  /** The units footage of this duration and height costs. */
  static int units(double seconds, int height) {
    return (int) Math.max(1, Math.ceil(seconds * height / UNIT - 1e-9));
  }

  /** How far a declaration may be from the probe's units: a quarter of them, at least 1 (rounding). */
  static int tolerance(int units) {
    return Math.max(1, Math.round(units / 4f));
  }

  /**
   * Reads the declaration in front of the limiter, as the limiter's own {@code header:} cost does.
   *
   * @throws JobProblem 400 {@code bad-cost}: present and not a whole number >= 1
   */
  void read(Context ctx) {
    if (header.isEmpty()) {
      return;
    }
    String value = ctx.header(header);
    if (value != null) {
      ctx.attribute(DECLARED, parse(value));
    }
  }

  /** @throws JobProblem 400 {@code bad-cost}: not a whole number >= 1 */
  int parse(String value) {
    try {
      int units = Integer.parseInt(value.trim());
      if (units >= 1) {
        return units;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new JobProblem(
        400,
        "bad-cost",
        header + " must be a whole number >= 1 (ceil(seconds x height / 3600)) but was '" + value
            + "'");
  }

  /**
   * Checks a declaration read by {@link #read} against the probed footage.
   *
   * @throws JobProblem 422 {@code cost-mismatch}, naming the declared and the probed units
   */
  void check(Context ctx, Footage footage) {
    Integer declared = ctx.attribute(DECLARED);
    if (declared != null) {
      verify(declared, footage);
    }
  }

  /** @throws JobProblem 422 {@code cost-mismatch}: {@code declared} is too far from the footage's units */
  void verify(int declared, Footage footage) {
    int probed = units(footage.durationSeconds(), footage.height());
    int tolerance = tolerance(probed);
    if (Math.abs(declared - probed) > tolerance) {
      throw new JobProblem(
          422,
          "cost-mismatch",
          String.format(
              Locale.ROOT,
              "%s declared %d but the footage (%.1f s at %dp) costs %d (ceil(seconds x height / %d),"
                  + " give or take %d)",
              header,
              declared,
              footage.durationSeconds(),
              footage.height(),
              probed,
              UNIT,
              tolerance));
    }
  }
}
