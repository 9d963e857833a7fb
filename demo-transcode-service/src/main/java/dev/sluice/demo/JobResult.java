package dev.sluice.demo;

/**
 * The answer to a finished job.
 *
 * @param jobId unique within this process
 * @param endpoint "transcode" or "rescue"
 * @param cpuMillis CPU the job asked for
 * @param waitMillis time the job waited without CPU before its work (storage), as asked
 * @param frames frames compressed
 * @param compressedBytes their compressed size
 * @param queuedMillis from the request's arrival to the start of the work (waiting for a permit)
 * @param serviceMillis the job itself (its wait and its CPU work), in wall time
 */
public record JobResult(
    String jobId,
    String endpoint,
    int cpuMillis,
    int waitMillis,
    int frames,
    long compressedBytes,
    double queuedMillis,
    double serviceMillis) {}
