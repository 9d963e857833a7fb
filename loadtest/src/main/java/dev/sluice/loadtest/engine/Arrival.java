package dev.sluice.loadtest.engine;

import java.util.Map;

/**
 * One request the scenario will send, fixed before the run starts.
 *
 * @param offsetNanos when to send it, measured from the start of the run
 * @param stream the stream it belongs to (its endpoint label)
 * @param method HTTP method
 * @param path path and query
 * @param headers request headers (e.g. the caller's account)
 */
public record Arrival(
    long offsetNanos, String stream, String method, String path, Map<String, String> headers) {}
