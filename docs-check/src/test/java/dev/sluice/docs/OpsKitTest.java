package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The operator's kit (ops/) against the code: the dashboard loads from a file without import-time
 * inputs, its panels and the alerts cover every reason a limiter can refuse with, and ops/README
 * names every meter the plugin registers and every problem type it can answer with.
 */
class OpsKitTest {

  private static final Path OPS = UserDocs.root().resolve("ops");
  private static final Pattern SERIES =
      Pattern.compile("^\\| `(sluice_[a-z_]+)` \\|", Pattern.MULTILINE);

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /** The limiter's refusals that answer 429: every reason but a timeout's and a shutdown's. */
  private static Set<String> queueFullReasons() {
    EnumSet<RejectionReason> reasons = EnumSet.allOf(RejectionReason.class);
    reasons.remove(RejectionReason.of(Outcome.QUEUE_TIMEOUT));
    reasons.remove(RejectionReason.of(Outcome.SHUTDOWN));
    return reasons.stream().map(OpsKitTest::lower).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> everyLimiterRefusal() {
    Set<String> all = Arrays.stream(RejectionReason.values())
        .map(OpsKitTest::lower)
        .collect(Collectors.toCollection(TreeSet::new));
    all.add(lower(Outcome.CANCELLED)); // a refusal without a finer reason is tagged by its outcome
    return all;
  }

  private static JsonNode dashboard() throws Exception {
    return new ObjectMapper()
        .readTree(OPS.resolve("grafana/sluice-dashboard.json").toFile());
  }

  @Test
  void theDashboardLoadsFromAFileWithADatasourceVariable() throws Exception {
    String raw = Files.readString(OPS.resolve("grafana/sluice-dashboard.json"));
    JsonNode d = dashboard();
    assertThat(d.has("__inputs")).as("no import-time inputs").isFalse();
    assertThat(raw).doesNotContain("${DS_");
    List<JsonNode> variables = new ArrayList<>();
    d.path("templating").path("list").forEach(variables::add);
    assertThat(variables).anySatisfy(v -> {
      assertThat(v.path("name").asText()).isEqualTo("datasource");
      assertThat(v.path("type").asText()).isEqualTo("datasource");
      assertThat(v.path("query").asText()).isEqualTo("prometheus");
    });
    List<String> uids = new ArrayList<>();
    d.findValues("datasource").forEach(ds -> {
      if (ds.has("uid")) {
        uids.add(ds.get("uid").asText());
      }
    });
    assertThat(uids).isNotEmpty().allMatch("${datasource}"::equals);
  }

  @Test
  void theRejectionsPanelShowsEveryReasonALimiterRefusesWith() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard().path("panels")) {
      if (panel.path("title").asText().startsWith("Rejections per second")) {
        panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
      }
    }
    assertThat(exprs).isNotEmpty();
    Set<String> shown = labelValues(String.join("\n", exprs), "reason");
    assertThat(shown).containsAll(everyLimiterRefusal());
  }

  @Test
  void theAlertsCoverEveryRefusal() throws Exception {
    Map<String, String> alerts = alerts();
    assertThat(labelValues(alerts.get("SluiceQueueFullRejections"), "reason"))
        .containsExactlyInAnyOrderElementsOf(queueFullReasons());
    assertThat(labelValues(alerts.get("SluiceQueueTimeouts"), "reason"))
        .containsExactly(lower(RejectionReason.of(Outcome.QUEUE_TIMEOUT)));
  }

  @Test
  void theSeriesTableNamesEveryMeterThePluginRegisters() throws Exception {
    Set<String> registered = new TreeSet<>();
    Class<?> binder = Class.forName("dev.sluice.micrometer.SluiceMeters");
    for (Field f : binder.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        f.setAccessible(true);
        String name = (String) f.get(null);
        if (name != null && name.startsWith("sluice.")) {
          registered.add(name.replace('.', '_'));
        }
      }
    }
    assertThat(registered).hasSizeGreaterThan(20);
    String readme = Files.readString(OPS.resolve("README.md"));
    Set<String> documented = new TreeSet<>();
    Matcher m = SERIES.matcher(readme);
    while (m.find()) {
      documented.add(m.group(1).replaceAll("_(total|seconds)$", ""));
    }
    assertThat(documented).isEqualTo(registered);

    String requests = row(readme, "sluice_concurrency_requests_total");
    assertThat(words(requests)).containsAll(everyLimiterRefusal()).contains("immediate", "queued");
    String http = row(readme, "sluice_http_rejections_total");
    assertThat(words(http)).containsAll(problemReasons().keySet());
  }

  @Test
  void everyProblemTypeThePluginCanSendIsInTheCatalogue() throws Exception {
    String ops = Files.readString(OPS.resolve("README.md"));
    String plugin = Files.readString(UserDocs.root().resolve("javalin-plugin/README.md"));
    Map<String, String> reasons = problemReasons();
    assertThat(reasons).containsKeys("queue_full", "deadline_exceeded");
    for (Map.Entry<String, String> e : reasons.entrySet()) {
      assertThat(ops).contains("`https://sluice.dev/problems/" + e.getValue() + "`");
      assertThat(plugin).containsPattern("problems/<[a-z|-]*\\b" + e.getValue() + "\\b");
    }
  }

  /** The HTTP doors' answers (tag -> problem type id), from their enum in sluice-http. */
  private static Map<String, String> problemReasons() throws Exception {
    Class<?> reason = Class.forName("dev.sluice.http.Rejection$Reason");
    Field id = reason.getDeclaredField("id");
    Field tag = reason.getDeclaredField("tag");
    id.setAccessible(true);
    tag.setAccessible(true);
    Map<String, String> all = new java.util.TreeMap<>();
    for (Object constant : reason.getEnumConstants()) {
      all.put((String) tag.get(constant), (String) id.get(constant));
    }
    return all;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> alerts() throws Exception {
    Map<String, Object> file;
    try (var in = Files.newInputStream(OPS.resolve("prometheus/sluice-alerts.yml"))) {
      file = new Yaml().load(in);
    }
    Map<String, String> byName = new java.util.TreeMap<>();
    for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
      for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
        byName.put((String) rule.get("alert"), (String) rule.get("expr"));
      }
    }
    return byName;
  }

  /** The values a PromQL text matches a label with, exactly or as a regex of alternatives. */
  private static Set<String> labelValues(String promql, String label) {
    Set<String> values = new TreeSet<>();
    Matcher m = Pattern.compile(label + "=~?\"([^\"]*)\"").matcher(promql);
    while (m.find()) {
      values.addAll(Arrays.asList(m.group(1).split("\\|")));
    }
    return values;
  }

  private static String row(String readme, String series) {
    return readme
        .lines()
        .filter(l -> l.startsWith("| `" + series + "`"))
        .findFirst()
        .orElseThrow();
  }

  private static Set<String> words(String text) {
    return new TreeSet<>(Arrays.asList(text.split("[^a-z_]+")));
  }
}
