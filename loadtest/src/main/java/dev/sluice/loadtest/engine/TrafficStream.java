package dev.sluice.loadtest.engine;

import java.util.Map;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

/**
 * One kind of traffic in a scenario: which endpoint, how often (requests per second as a function of
 * seconds since the start), and how each request looks.
 *
 * @param name label used in the report, e.g. {@code transcode}
 * @param method HTTP method
 * @param path builds the path and query of one request from the stream's seeded random
 * @param callers how many distinct callers (hosts or accounts) share the stream
 * @param headers the headers of a request by the caller's index
 * @param rate requests per second at a given second of the run
 * @param peakRate an upper bound of {@code rate}, used to generate arrivals by thinning
 */
public record TrafficStream(
    String name,
    String method,
    Function<Random, String> path,
    int callers,
    Function<Integer, Map<String, String>> headers,
    DoubleUnaryOperator rate,
    double peakRate) {

  public TrafficStream {
    if (callers < 1) {
      throw new IllegalArgumentException("callers must be >= 1 but was " + callers);
    }
    if (!(peakRate >= 0)) {
      throw new IllegalArgumentException("peakRate must be >= 0 but was " + peakRate);
    }
  }

  /** A stream with a constant rate. */
  public static TrafficStream constant(
      String name,
      String method,
      Function<Random, String> path,
      int callers,
      Function<Integer, Map<String, String>> headers,
      double rate) {
    return new TrafficStream(name, method, path, callers, headers, t -> rate, rate);
  }
}
