package dev.sluice.loadtest.tenants;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * One service set-up the {@code greedy-host} and {@code priority} scenarios compare: a fresh
 * embedded demo started with these {@code -D} properties (after {@code --server-property}).
 *
 * @param name short id, e.g. {@code fair}; in the report, the JSON and the service log's name
 * @param description what the set-up is
 * @param serverProperties {@code key=value}
 */
record Variant(String name, String description, List<String> serverProperties) {

  static final String LIMITER = "sluice.limiters.transcode.";

  Variant {
    serverProperties = List.copyOf(serverProperties);
  }

  /** The label of its run: name and description. */
  String label() {
    return name + ": " + description;
  }

  /**
   * FIFO with no per-key cap and no classes: the limiter before fair queues and classes. The key
   * and the cap are cleared too, since the plugin refuses them with {@code queue=fifo} and the demo
   * sets them.
   */
  static Variant fifo() {
    return new Variant(
        "fifo",
        "one FIFO queue, no classes",
        List.of(
            LIMITER + "queue=fifo",
            LIMITER + "queue-key=",
            LIMITER + "max-queue-per-key=0",
            LIMITER + "priority-header="));
  }

  /** The demo's defaults spelled out: fair by host with a per-key cap, classes by header. */
  static Variant fair() {
    return new Variant(
        "fair",
        "fair by X-Host-Id, 1 queued per host, X-Priority classes",
        List.of(
            LIMITER + "queue=fair",
            LIMITER + "queue-key=header:" + GreedyHostTraffic.HOST_HEADER,
            LIMITER + "max-queue-per-key=1",
            LIMITER + "priority-header=" + GreedyHostTraffic.PRIORITY_HEADER));
  }

  /** Priority classes over one FIFO queue with no per-key cap, so the queue fills and displaces. */
  static Variant classes() {
    return new Variant(
        "classes",
        "one FIFO queue, X-Priority classes (displacement)",
        List.of(
            LIMITER + "queue=fifo",
            LIMITER + "queue-key=",
            LIMITER + "max-queue-per-key=0",
            LIMITER + "priority-header=" + GreedyHostTraffic.PRIORITY_HEADER));
  }

  /**
   * Netflix concurrency-limits' partitioned limiter in front of {@code /api/transcode} (the demo's
   * {@code demo.limiter-peer}), one partition per maintenance host by {@code X-Host-Id}, each 1/32 of
   * the limit; Sluice's transcode limiter is moved off the path so only the peer guards it.
   */
  static Variant netflixPartitioned() {
    String hosts = String.join(
        ",",
        IntStream.rangeClosed(1, GreedyHostTraffic.HOSTS)
            .mapToObj(GreedyHostTraffic::host)
            .toList());
    return new Variant(
        "netflix-partitioned",
        "Netflix AbstractPartitionedLimiter, a partition per X-Host-Id, no queue",
        List.of(
            LIMITER + "path=/api/transcode-unguarded",
            "demo.limiter-peer=netflix-partitioned",
            "demo.limiter-peer.partition-header=" + GreedyHostTraffic.HOST_HEADER,
            "demo.limiter-peer.partitions=" + hosts));
  }

  /** The variants a scenario compares when none are named. */
  static List<Variant> defaults(TenantScenario scenario) {
    return switch (scenario) {
      case GREEDY_HOST -> List.of(fifo(), fair(), netflixPartitioned());
      case PRIORITY -> List.of(fifo(), classes());
    };
  }

  /**
   * The variants of a run from the {@code --variant} specs: {@code NAME} picks a built-in variant,
   * {@code NAME:key=value} adds a property to it (or to a new variant of that name). Without specs,
   * the scenario's defaults.
   *
   * @throws IllegalArgumentException naming the spec that is wrong
   */
  static List<Variant> select(TenantScenario scenario, List<String> specs) {
    if (specs.isEmpty()) {
      return defaults(scenario);
    }
    Map<String, Variant> known = new LinkedHashMap<>();
    for (Variant v : List.of(fifo(), fair(), classes(), netflixPartitioned())) {
      known.put(v.name(), v);
    }
    Map<String, Variant> chosen = new LinkedHashMap<>();
    for (String spec : specs) {
      int colon = spec.indexOf(':');
      String name = (colon < 0 ? spec : spec.substring(0, colon)).trim();
      if (!name.matches("[A-Za-z0-9._-]+")) {
        throw new IllegalArgumentException(
            "--variant must look like NAME or NAME:key=value (NAME of letters, digits, . _ -) but was '"
                + spec + "'");
      }
      Variant base = chosen.getOrDefault(
          name, known.getOrDefault(name, new Variant(name, "custom", List.of())));
      if (colon < 0) {
        chosen.put(name, base);
        continue;
      }
      String property = spec.substring(colon + 1);
      if (property.indexOf('=') < 1) {
        throw new IllegalArgumentException("--variant " + name
            + ": the property must look like key=value but was '" + property + "'");
      }
      List<String> properties = new ArrayList<>(base.serverProperties());
      properties.add(property);
      chosen.put(name, new Variant(name, base.description(), properties));
    }
    return List.copyOf(chosen.values());
  }
}
