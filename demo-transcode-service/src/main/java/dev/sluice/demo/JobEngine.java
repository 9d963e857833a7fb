package dev.sluice.demo;

import io.javalin.http.Context;

/**
 * The heavy endpoints' work, one per {@link Engine}: a cheap check that runs in front of the
 * limiter, and the job itself, which runs only once the limiter has admitted the request.
 */
interface JobEngine extends AutoCloseable {

  /** In front of the limiter: refuses a request that can never succeed, reading no body. */
  void validate(Context ctx);

  /** The job, behind the limiter; {@code endpoint} is "transcode" or "rescue". */
  void job(Context ctx, String endpoint);

  /** What the start-up line says about this engine. */
  String describe();

  /** Ends what the engine still runs (child processes); called when the service stops. */
  @Override
  default void close() {}
}
