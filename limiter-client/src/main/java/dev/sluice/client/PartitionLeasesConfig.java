package dev.sluice.client;

import java.time.Duration;

/**
 * The immutable settings of {@link PartitionLeases}: a service's quota split into {@code partitions}
 * of {@code permitsPerSecond} each (the pattern's example: 500 rps as 20 partitions of 25 rps, each
 * leased for 15 s). Built with {@link #custom(String)}; setters validate at once.
 */
public final class PartitionLeasesConfig {

  public static final int DEFAULT_PARTITIONS = 20;
  public static final long DEFAULT_PERMITS_PER_SECOND = 25;
  public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(15);
  public static final long DEFAULT_RESERVED_PER_SECOND = 0;
  /** 2 % of each partition left unused: requests sent evenly still arrive with network jitter. */
  public static final double DEFAULT_HEADROOM = 0.02;

  private final String service;
  private final int partitions;
  private final long permitsPerSecond;
  private final Duration leaseTime;
  private final long reservedPerSecond;
  private final int maxPartitions;
  private final double headroom;

  private PartitionLeasesConfig(Builder b) {
    this.headroom = b.headroom;
    this.service = b.service;
    this.partitions = b.partitions;
    this.permitsPerSecond = b.permitsPerSecond;
    this.leaseTime = b.leaseTime;
    this.reservedPerSecond = b.reservedPerSecond;
    this.maxPartitions =
        b.maxPartitions == 0 ? b.partitions : Math.min(b.maxPartitions, b.partitions);
  }

  /** Starts the settings of the quota of {@code service} (the Redis keys are named after it). */
  public static Builder custom(String service) {
    return new Builder(service);
  }

  public String service() {
    return service;
  }

  public int partitions() {
    return partitions;
  }

  public long permitsPerSecond() {
    return permitsPerSecond;
  }

  public Duration leaseTime() {
    return leaseTime;
  }

  public long reservedPerSecond() {
    return reservedPerSecond;
  }

  public int maxPartitions() {
    return maxPartitions;
  }

  /** The share of each partition's rate left unused. */
  public double headroom() {
    return headroom;
  }

  /** The pace of {@code held} partitions: held x rate, less the headroom, plus the reserved share. */
  public long paceOf(int held) {
    return (long) Math.floor(held * permitsPerSecond * (1 - headroom)) + reservedPerSecond;
  }

  /** The whole quota the partitions add up to, permits per second. */
  public long quotaPerSecond() {
    return partitions * permitsPerSecond;
  }

  /** Builds a {@link PartitionLeasesConfig}; each setter validates its value at once. */
  public static final class Builder {
    private final String service;
    private int partitions = DEFAULT_PARTITIONS;
    private long permitsPerSecond = DEFAULT_PERMITS_PER_SECOND;
    private Duration leaseTime = DEFAULT_LEASE_TIME;
    private long reservedPerSecond = DEFAULT_RESERVED_PER_SECOND;
    private int maxPartitions;
    private double headroom = DEFAULT_HEADROOM;

    private Builder(String service) {
      if (service == null
          || service.isBlank()
          || service.length() > 200
          || service.chars().anyMatch(c -> c == '{' || c == '}' || c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException("service must be 1-200 printable characters without "
            + "braces or spaces but was '" + service + "'");
      }
      this.service = service;
    }

    /** {@code partitions} of {@code permitsPerSecond} each; partitions in [1, 10000]. */
    public Builder partitions(int partitions, long permitsPerSecond) {
      if (partitions < 1 || partitions > 10_000) {
        throw new IllegalArgumentException(
            "partitions must be in [1, 10000] but was " + partitions);
      }
      if (permitsPerSecond < 1) {
        throw new IllegalArgumentException(
            "permitsPerSecond per partition must be >= 1 but was " + permitsPerSecond);
      }
      this.partitions = partitions;
      this.permitsPerSecond = permitsPerSecond;
      return this;
    }

    /** How long a lease lasts unrenewed (renewed every third of it); in [100ms, 1h]. */
    public Builder leaseTime(Duration leaseTime) {
      if (leaseTime == null
          || leaseTime.toMillis() < 100
          || leaseTime.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("leaseTime must be in [100ms, 1h] but was " + leaseTime);
      }
      this.leaseTime = leaseTime;
      return this;
    }

    /**
     * A pace this process may use without any lease, so it can start at once. It is outside the
     * partitions: size the partitions as (quota - processes x reserved).
     */
    public Builder reservedPerSecond(long reservedPerSecond) {
      if (reservedPerSecond < 0) {
        throw new IllegalArgumentException(
            "reservedPerSecond must be >= 0 but was " + reservedPerSecond);
      }
      this.reservedPerSecond = reservedPerSecond;
      return this;
    }

    /** At most this many partitions for one process (default: all), so one process cannot take all. */
    public Builder maxPartitions(int maxPartitions) {
      if (maxPartitions < 1) {
        throw new IllegalArgumentException("maxPartitions must be >= 1 but was " + maxPartitions);
      }
      this.maxPartitions = maxPartitions;
      return this;
    }

    /**
     * The share of each partition's rate left unused, in [0, 0.5]: requests released evenly reach
     * the service with network jitter, so a quota used to the last permit is exceeded in some
     * second by a few. Default 2 %.
     */
    public Builder headroom(double headroom) {
      if (!(headroom >= 0 && headroom <= 0.5)) {
        throw new IllegalArgumentException("headroom must be in [0, 0.5] but was " + headroom);
      }
      this.headroom = headroom;
      return this;
    }

    public PartitionLeasesConfig build() {
      return new PartitionLeasesConfig(this);
    }
  }
}
