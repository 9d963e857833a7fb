package dev.sluice.ratelimit;

import java.time.Duration;
import java.util.SortedMap;
import java.util.concurrent.CompletionStage;

/**
 * What every proxy reporting a bucket asks for: each stream's demand (requests per second) per
 * bucket, kept for a TTL after its report. In this process ({@link LocalDemands}) or in Redis
 * ({@link RedisDemands}), where every replica of the service writes its streams' demands and reads
 * the others'.
 */
interface Demands extends AutoCloseable {

  /**
   * Records {@code perSecond} as {@code stream}'s demand for {@code bucket} for {@code ttl}, and
   * answers every live demand for the bucket (this one included), by stream id in order. Never
   * completes exceptionally: when the shared state cannot be reached it answers from the last
   * demands it knew, with this one updated.
   */
  CompletionStage<SortedMap<String, Double>> report(
      String bucket, String stream, double perSecond, Duration ttl);

  /** Forgets {@code stream}'s demand for {@code bucket} (its stream closed). Best effort. */
  void withdraw(String bucket, String stream);

  /** A short description for the start-up line. */
  String describe();

  @Override
  void close();
}
