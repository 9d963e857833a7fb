package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.jar.JarFile;

/**
 * The checks each library module's {@code AutomaticModuleNameIT} runs on its packaged jar (the
 * path failsafe passes as {@code sluice.jar}): the manifest names the module, and the module system
 * reads the jar under that name rather than one derived from its file name.
 */
public final class ModuleJar {

  private ModuleJar() {}

  /** The jar the build made, as failsafe passes it. */
  public static Path packaged() {
    return Path.of(System.getProperty("sluice.jar"));
  }

  /** The manifest's {@code Automatic-Module-Name} is {@code name}. */
  public static void manifestNames(Path jar, String name) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo(name);
    }
  }

  /** The module system reads {@code jar} as the automatic module {@code name}. */
  public static void moduleSystemReads(Path jar, String name) {
    ModuleDescriptor module = ModuleFinder.of(jar).findAll().stream()
        .map(ModuleReference::descriptor)
        .findFirst()
        .orElseThrow();
    assertThat(module.name()).isEqualTo(name);
    assertThat(module.isAutomatic()).isTrue();
  }
}
