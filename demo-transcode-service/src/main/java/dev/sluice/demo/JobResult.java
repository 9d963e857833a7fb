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
 * @param cpuUsedMillis the CPU the work took, read on the thread's CPU clock: near {@code cpuMillis}
 *     on an idle machine, more when jobs and other work share the cores and each slows the
 *     other's caches; -1 where the thread has no CPU clock (a virtual thread: Java 21 and later
 *     run the handlers on them)
 */
public record JobResult(
    String jobId,
    String endpoint,
    int cpuMillis,
    int waitMillis,
    int frames,
    long compressedBytes,
    double queuedMillis,
    double serviceMillis,
    double cpuUsedMillis) {}
