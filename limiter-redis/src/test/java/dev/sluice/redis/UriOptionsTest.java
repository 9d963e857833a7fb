package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UriOptionsTest {

  @Test
  void aPlainUriHasNoOptions() {
    UriOptions options = UriOptions.parse(URI.create("redis://127.0.0.1:6379"));

    assertThat(options)
        .isEqualTo(
            new UriOptions("redis://127.0.0.1:6379", false, 0, UriOptions.DEFAULT_BATCH_SYNC));
  }

  @Test
  void sluiceParametersAreTakenOffAndTheRestKeptForLettuce() {
    UriOptions options = UriOptions.parse(URI.create(
        "rediss://user:secret@cache:6380/2?cluster=true&timeout=3s&batch=20&batch-sync=250ms"));

    assertThat(options.lettuceUri()).isEqualTo("rediss://user:secret@cache:6380/2?timeout=3s");
    assertThat(options.cluster()).isTrue();
    assertThat(options.batch()).isEqualTo(20);
    assertThat(options.batchSync()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void batchSyncTakesEveryDurationFormOfTheProperties() {
    assertThat(UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=2s")).batchSync())
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=PT0.5S"))
            .batchSync())
        .isEqualTo(Duration.ofMillis(500));
    assertThat(UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=1m")).batchSync())
        .isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void badValuesNameTheParameterAndTheValue() {
    assertThatThrownBy(() -> UriOptions.parse(URI.create("redis://h:1?batch=1")))
        .hasMessageContaining("batch")
        .hasMessageContaining("'1'");
    assertThatThrownBy(() -> UriOptions.parse(URI.create("redis://h:1?batch=ten")))
        .hasMessageContaining("'ten'");
    assertThatThrownBy(() -> UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=soon")))
        .hasMessageContaining("batch-sync")
        .hasMessageContaining("'soon'");
    assertThatThrownBy(() -> UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=0s")))
        .hasMessageContaining("at least 1ms")
        .hasMessageContaining("'0s'");
    assertThatThrownBy(() -> UriOptions.parse(URI.create("redis://h:1?cluster=yes")))
        .hasMessageContaining("cluster")
        .hasMessageContaining("'yes'");
  }

  @Test
  void theSmallestBatchIsTwoPermits() {
    assertThat(UriOptions.parse(URI.create("redis://h:1?batch=2")).batch()).isEqualTo(2);
  }

  @Test
  void theShortestBatchSyncIsOneMillisecond() {
    assertThat(
            UriOptions.parse(URI.create("redis://h:1?batch=5&batch-sync=1ms")).batchSync())
        .isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void clusterFalseIsReadAsFalse() {
    assertThat(UriOptions.parse(URI.create("redis://h:1?cluster=FALSE")).cluster())
        .isFalse();
  }

  @Test
  void aParameterWithoutAValueIsKeptForLettuce() {
    assertThat(UriOptions.parse(URI.create("redis://h:1?ssl&batch=3")).lettuceUri())
        .isEqualTo("redis://h:1?ssl");
  }
}
