package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rules.RulesFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading envoy/ratelimit's YAML: what is refused, and where the error says it is. */
class DescriptorConfigTest {

  @TempDir
  Path dir;

  private static RulesFileException refused(String yaml) {
    try {
      DescriptorConfig.parse("limits.yaml", yaml);
    } catch (RulesFileException e) {
      return e;
    }
    throw new AssertionError("accepted: " + yaml);
  }

  @Test
  void anUnknownUnitNamesFileLineAndField() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unit: fortnight
              requests_per_unit: 5
        """);
    assertThat(e.source()).isEqualTo("limits.yaml");
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.field()).isEqualTo("descriptors[0].rate_limit.unit");
    assertThat(e.problem()).contains("fortnight").contains("second, minute, hour, day");
  }

  @Test
  void anUnknownFieldIsRefusedWithTheAllowedOnes() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            valeu: v
        """);
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.field()).isEqualTo("descriptors[0].valeu");
    assertThat(e.problem()).contains("unknown field 'valeu'").contains("value");
  }

  @Test
  void aUnitBesideUnlimitedIsRefused() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unlimited: true
              unit: second
        """);
    assertThat(e.problem()).contains("should not specify rate limit unit when unlimited");
  }

  @Test
  void theSameCompositeKeyTwiceOnOneLevelIsRefused() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            value: v
          - key: k
            value: v
        """);
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.problem()).contains("duplicate descriptor composite key 'k_v'");
  }

  @Test
  void anEmptyDomainIsRefused() {
    RulesFileException e = refused("""
        descriptors:
          - key: k
        """);
    assertThat(e.field()).isEqualTo("domain");
    assertThat(e.problem()).contains("empty domain");
  }

  @Test
  void aNegativeRequestsPerUnitIsRefused() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unit: second
              requests_per_unit: -3
        """);
    assertThat(e.line()).isEqualTo(6);
    assertThat(e.field()).isEqualTo("descriptors[0].rate_limit.requests_per_unit");
  }

  @Test
  void quotaModeIsRefusedAsNotSupported() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            quota_mode: true
        """);
    assertThat(e.problem()).contains("quota_mode is not supported");
  }

  @Test
  void brokenYamlNamesItsLine() {
    RulesFileException e = refused("domain: d\ndescriptors:\n  - key: [unclosed\n");
    assertThat(e.line()).isGreaterThan(0);
    assertThat(e.problem()).startsWith("not valid YAML");
  }

  @Test
  void aFolderLoadsOneDomainPerFile() throws Exception {
    Files.writeString(dir.resolve("a.yaml"), "domain: a\ndescriptors:\n  - key: k\n");
    Files.writeString(dir.resolve("b.yml"), "domain: b\n");
    Files.writeString(dir.resolve("notes.txt"), "not read");
    DescriptorConfig config = DescriptorConfig.load(dir);
    assertThat(config.domains()).containsOnlyKeys("a", "b");
  }

  @Test
  void aDomainInTwoFilesIsRefusedNamingBoth() throws Exception {
    Files.writeString(dir.resolve("a.yaml"), "domain: same\n");
    Files.writeString(dir.resolve("b.yaml"), "domain: same\n");
    assertThatThrownBy(() -> DescriptorConfig.load(dir))
        .isInstanceOf(RulesFileException.class)
        .hasMessageContaining("b.yaml:1")
        .hasMessageContaining("duplicate domain 'same'")
        .hasMessageContaining("a.yaml");
  }

  @Test
  void anUnknownAlgorithmNamesFileLineFieldAndTheAllowedOnes() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unit: second
              requests_per_unit: 5
              algorithm: token-buckets
        """);
    assertThat(e.source()).isEqualTo("limits.yaml");
    assertThat(e.line()).isEqualTo(7);
    assertThat(e.field()).isEqualTo("descriptors[0].rate_limit.algorithm");
    assertThat(e.problem())
        .contains("token-buckets")
        .contains("token-bucket, ")
        .contains("gcra")
        .doesNotContain("leaky-bucket-shaper");
  }

  @Test
  void theShaperIsRefusedSinceEnvoyCannotDelayARequest() {
    RulesFileException e = refused("""
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unit: second
              requests_per_unit: 5
              algorithm: leaky-bucket-shaper
        """);
    assertThat(e.problem()).contains("delays requests");
  }
}
