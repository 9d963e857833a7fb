package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sluice.config.SluiceProperties;
import dev.sluice.demo.DemoSettings;
import dev.sluice.grpc.SluiceGrpc;
import dev.sluice.javalin.SluicePlugin;
import dev.sluice.ratelimit.DescriptorConfig;
import dev.sluice.ratelimit.ServiceSettings;
import dev.sluice.rules.RulesFile;
import dev.sluice.servlet.SluiceFilter;
import io.javalin.Javalin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Every ```properties block of the docs starts a Sluice plugin (strict: an unknown key or a bad
 * value fails), read by the loader the page is about (the demo's for its README); every ```yaml
 * block is a rules file RulesFile reads.
 */
class ConfigSnippetsTest {

  private static final Pattern INCLUDE = Pattern.compile("<!--\\s*include:\\s*(\\S+)\\s*-->");
  private static final Pattern LIMITER = Pattern.compile("^sluice\\.limiters\\.([^.]+)\\.");

  @TempDir
  Path dir;

  @TestFactory
  Stream<DynamicTest> everyPropertiesBlockStartsThePlugin() {
    List<UserDocs.Block> blocks = UserDocs.blocks("properties");
    assertThat(blocks).hasSizeGreaterThan(4);
    return blocks.stream().map(b -> DynamicTest.dynamicTest(b.where(), () -> startsThePlugin(b)));
  }

  @TestFactory
  Stream<DynamicTest> everyYamlBlockIsARulesFile() {
    List<UserDocs.Block> blocks = UserDocs.blocks("yaml");
    assertThat(blocks).hasSizeGreaterThan(2);
    return blocks.stream().map(b -> DynamicTest.dynamicTest(b.where(), () -> isARulesFile(b)));
  }

  @SuppressWarnings("unchecked")
  private static void isARulesFile(UserDocs.Block block) throws Exception {
    if (block.before().contains("grafana provisioning")) { // Grafana's file, not Sluice's
      Map<String, Object> file = new Yaml().load(block.text());
      assertThat(file).containsEntry("apiVersion", 1);
      List<Map<String, Object>> providers = (List<Map<String, Object>>) file.get("providers");
      assertThat(providers)
          .isNotEmpty()
          .allSatisfy(p -> assertThat(p).containsEntry("type", "file"));
      return;
    }
    if (UserDocs.relative(block.page()).startsWith("ratelimit-service/")) {
      if (block.before().contains("Envoy's configuration")) { // Envoy's file, not the service's
        Map<String, Object> file = new Yaml().load(block.text());
        assertThat(file).containsKey("http_filters");
        return;
      }
      // envoy/ratelimit's descriptor YAML, read by the service's own loader
      assertThat(DescriptorConfig.parse(block.where(), block.text()).domainNames())
          .isNotEmpty();
      return;
    }
    assertThat(RulesFile.parse(block.where(), block.text()).rules()).isNotNull();
  }

  private void startsThePlugin(UserDocs.Block block) throws Exception {
    Matcher include = INCLUDE.matcher(block.before());
    if (include.find()) { // a file of an example, which its own run loads
      assertThat(block.text().strip())
          .as("%s shows %s word for word", block.where(), include.group(1))
          .isEqualTo(Files.readString(UserDocs.root().resolve(include.group(1))).strip());
      return;
    }
    Path case_ = Files.createTempDirectory(dir, "props");
    Path file = case_.resolve("sluice.properties");
    Files.writeString(file, block.text());
    Properties read = new Properties();
    try (var in = Files.newBufferedReader(file)) {
      read.load(in);
    }
    // what the snippet leans on from around it: a rules file it names, a path for a limiter it
    // tunes
    Map<String, String> around = new TreeMap<>();
    String rules = read.getProperty("sluice.rules.file");
    if (rules != null && !rules.strip().startsWith("classpath:")) {
      Path rulesFile = case_.resolve(rules.strip());
      Files.createDirectories(rulesFile.getParent());
      Files.writeString(rulesFile, "rules: []\n");
    }
    for (String key : read.stringPropertyNames()) {
      Matcher m = LIMITER.matcher(key);
      if (m.find() && !read.containsKey("sluice.limiters." + m.group(1) + ".path")) {
        around.put("sluice.limiters." + m.group(1) + ".path", "/snippet/" + m.group(1));
      }
    }
    if (UserDocs.relative(block.page()).startsWith("ratelimit-service/")) {
      // the service's keys, read by its own loader, strict as at its start; the descriptors it
      // names are a file of one domain
      String descriptors = read.getProperty("sluice.ratelimit-service.config", "ratelimit.yaml");
      Files.writeString(case_.resolve(descriptors.strip()), "domain: snippet\n");
      Properties withPath = new Properties();
      withPath.putAll(read);
      withPath.setProperty(
          "sluice.ratelimit-service.config", case_.resolve(descriptors.strip()).toString());
      try (var out = Files.newBufferedWriter(file)) {
        withPath.store(out, null);
      }
      assertThatCode(() ->
              ServiceSettings.load(new String[] {"--config", file.toString()}, Map.of(), Map.of()))
          .as("%s is read by the rate-limit service:\n%s", block.where(), block.text())
          .doesNotThrowAnyException();
      return;
    }
    if (UserDocs.relative(block.page()).startsWith("grpc-interceptor/")) {
      // the interceptor's page: its keys build the interceptor, strict as at its start
      SluiceProperties grpc =
          SluiceProperties.builder().file(file).env(Map.of()).system(around).build();
      assertThatCode(() -> SluiceGrpc.fromProperties(grpc).close())
          .as("%s builds the gRPC interceptor:\n%s", block.where(), block.text())
          .doesNotThrowAnyException();
      return;
    }
    if (UserDocs.relative(block.page()).startsWith("servlet-filter/")) {
      // the filter's page: its keys build the filter, strict as at its start
      SluiceProperties servlet =
          SluiceProperties.builder().file(file).env(Map.of()).system(around).build();
      assertThatCode(() -> SluiceFilter.fromProperties(servlet).destroy())
          .as("%s builds the servlet filter:\n%s", block.where(), block.text())
          .doesNotThrowAnyException();
      return;
    }
    SluiceProperties props;
    if (UserDocs.relative(block.page()).startsWith("demo-transcode-service/")) {
      props = DemoSettings.load(new String[] {"--config", file.toString()}).sluiceProperties();
    } else {
      props = SluiceProperties.builder().file(file).env(Map.of()).system(around).build();
    }
    SluiceProperties checked = props;
    assertThatCode(() ->
            Javalin.create(c -> c.registerPlugin(new SluicePlugin(cfg -> cfg.properties(checked)))))
        .as("%s starts the plugin:\n%s", block.where(), block.text())
        .doesNotThrowAnyException();
  }
}
