package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar has a stable name on the module path ({@code Automatic-Module-Name}), not one
 * derived from its file name. Runs after {@code package} (failsafe), on the jar the build made.
 */
class AutomaticModuleNameIT {

  private static final String NAME = "dev.sluice.core";

  private final Path jar = Path.of(System.getProperty("sluice.jar"));

  @Test
  void manifestNamesTheModule() throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo(NAME);
    }
  }

  @Test
  void moduleSystemReadsTheJarUnderThatName() {
    ModuleDescriptor module =
        ModuleFinder.of(jar).findAll().stream()
            .map(ModuleReference::descriptor)
            .findFirst()
            .orElseThrow();
    assertThat(module.name()).isEqualTo(NAME);
    assertThat(module.isAutomatic()).isTrue();
  }
}
