package dev.sluice.loadtest.engine;

import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.IntToDoubleFunction;

/**
 * What one load run sends: the streams at an offered transcode rate, the job the unloaded
 * calibration sends, and how often a request is tried.
 *
 * @param id the scenario's name in the summary, e.g. {@code monday-maintenance} or {@code adaptive/io}
 * @param cpuMillis CPU per transcode job (the mean, for a mix of sizes)
 * @param calibrationPath the job sent a few times to the idle service before the run
 * @param rate the offered transcode rate, given the cores the service reports
 * @param streams the streams at an offered transcode rate, over a duration
 * @param maxAttempts tries per request, the first included
 */
public record Workload(
    String id,
    int cpuMillis,
    String calibrationPath,
    IntToDoubleFunction rate,
    BiFunction<Double, Duration, List<TrafficStream>> streams,
    int maxAttempts) {}
