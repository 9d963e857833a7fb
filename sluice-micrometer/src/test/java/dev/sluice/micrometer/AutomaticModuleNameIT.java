package dev.sluice.micrometer;

import dev.sluice.testing.ModuleJar;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar has a stable name on the module path ({@code Automatic-Module-Name}), not one
 * derived from its file name. Runs after {@code package} (failsafe), on the jar the build made.
 */
class AutomaticModuleNameIT {

  private static final String NAME = "dev.sluice.micrometer";

  private final Path jar = ModuleJar.packaged();

  @Test
  void manifestNamesTheModule() throws IOException {
    ModuleJar.manifestNames(jar, NAME);
  }

  @Test
  void moduleSystemReadsTheJarUnderThatName() {
    ModuleJar.moduleSystemReads(jar, NAME);
  }
}
