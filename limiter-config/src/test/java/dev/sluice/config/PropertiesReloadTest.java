package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reload re-reads the file, says what is new once, and resolves a changed version. */
class PropertiesReloadTest {

  @TempDir
  Path dir;

  private Path file;

  private PropertiesReload<SluiceSettings> start(String text) throws IOException {
    file = dir.resolve("sluice.properties");
    Files.writeString(file, text);
    SluiceProperties p =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    return new PropertiesReload<>(p, next -> SluiceSettings.resolve(next, Map.of()));
  }

  private static int maxQueue(PropertiesReload.Outcome outcome) {
    assertThat(outcome).isInstanceOf(PropertiesReload.Changed.class);
    SluiceSettings s = (SluiceSettings) ((PropertiesReload.Changed<?>) outcome).settings();
    return s.limiters().get("w").maxQueue();
  }

  @Test
  void theSameValuesAreUnchangedAndNewOnesAreResolved() throws IOException {
    PropertiesReload<SluiceSettings> reload = start("sluice.limiters.w.max-queue=3\n");
    assertThat(reload.poll()).isInstanceOf(PropertiesReload.Unchanged.class);

    Files.writeString(file, "# touched\nsluice.limiters.w.max-queue=3\n");
    assertThat(reload.poll()).as("same values").isInstanceOf(PropertiesReload.Unchanged.class);

    Files.writeString(file, "sluice.limiters.w.max-queue=5\n");
    assertThat(maxQueue(reload.poll())).isEqualTo(5);
  }

  @Test
  void aChangeAppliedIsInForceAndNotReportedAgain() throws IOException {
    PropertiesReload<SluiceSettings> reload = start("sluice.limiters.w.max-queue=3\n");
    Files.writeString(file, "sluice.limiters.w.max-queue=5\n");
    @SuppressWarnings("unchecked")
    PropertiesReload.Changed<SluiceSettings> change =
        (PropertiesReload.Changed<SluiceSettings>) reload.poll();

    reload.applied(change);

    assertThat(reload.inForce().get("sluice.limiters.w.max-queue")).hasValue("5");
    assertThat(reload.poll()).isInstanceOf(PropertiesReload.Unchanged.class);
  }

  @Test
  void aWrongVersionIsRefusedOnceNamingKeyValueAndFile() throws IOException {
    PropertiesReload<SluiceSettings> reload = start("sluice.limiters.w.max-queue=3\n");
    Files.writeString(file, "sluice.limiters.w.max-queue=lots\n");

    PropertiesReload.Outcome first = reload.poll();
    assertThat(first).isInstanceOf(PropertiesReload.Refused.class);
    assertThat(((PropertiesReload.Refused) first).reason())
        .startsWith("sluice.limiters.w.max-queue='lots' (from file " + file + ")");
    assertThat(reload.poll()).as("reported once").isInstanceOf(PropertiesReload.Unchanged.class);
    assertThat(reload.inForce().get("sluice.limiters.w.max-queue")).hasValue("3");

    Files.writeString(file, "sluice.limiters.w.max-queue=4\n");
    assertThat(maxQueue(reload.poll())).isEqualTo(4);
  }

  @Test
  void anUnreadableFileIsReportedOncePerReason() throws IOException {
    PropertiesReload<SluiceSettings> reload = start("sluice.limiters.w.max-queue=3\n");
    Files.delete(file);

    PropertiesReload.Outcome first = reload.poll();
    assertThat(first).isInstanceOf(PropertiesReload.Unreadable.class);
    assertThat(((PropertiesReload.Unreadable) first).reason()).contains("does not exist");
    assertThat(reload.poll()).isInstanceOf(PropertiesReload.Unchanged.class);

    Files.writeString(file, "sluice.limiters.w.max-queue=6\n");
    assertThat(maxQueue(reload.poll())).isEqualTo(6);
  }

  @Test
  void anExplicitReadResolvesOrThrows() throws IOException {
    PropertiesReload<SluiceSettings> reload = start("sluice.limiters.w.max-queue=3\n");
    assertThat(maxQueue(reload.read())).as("unchanged, resolved all the same").isEqualTo(3);

    Files.writeString(file, "sluice.limiters.w.max-queue=-1\n");
    assertThatThrownBy(reload::read)
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("'-1'");
  }
}
