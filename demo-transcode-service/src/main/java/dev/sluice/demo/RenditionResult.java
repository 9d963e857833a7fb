package dev.sluice.demo;

/**
 * The answer to a finished job of the {@code ffmpeg} engine (JSON; the rendition itself is not
 * sent back: the scenario's clients care that the job was done and what it cost).
 *
 * @param jobId unique within this process
 * @param endpoint "transcode" or "rescue"
 * @param rendition what was made, probed from ffmpeg's output
 * @param renditionBytes its size
 * @param source what the upload held, probed before the transcode
 * @param costEstimate {@link Footage#costEstimate}: megapixels through the codecs
 * @param threads ffmpeg's {@code -threads}
 * @param queuedMillis from the request's arrival to the start of the job (waiting for a permit)
 * @param uploadMillis reading the body
 * @param probeMillis ffprobe on the upload
 * @param transcodeMillis ffmpeg
 * @param serviceMillis the whole job after admission (upload, probes, transcode), in wall time
 */
public record RenditionResult(
    String jobId,
    String endpoint,
    Footage rendition,
    long renditionBytes,
    Footage source,
    double costEstimate,
    int threads,
    double queuedMillis,
    double uploadMillis,
    double probeMillis,
    double transcodeMillis,
    double serviceMillis) {}
