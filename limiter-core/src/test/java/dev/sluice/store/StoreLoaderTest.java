package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.NanoClock;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreLoader} finds providers through {@link java.util.ServiceLoader} on the thread's
 * context class loader: the tests give it one that registers {@link MemoryProvider}, so nothing
 * is registered for the other tests (nor for the modules that use this module's test jar).
 */
class StoreLoaderTest {

  @TempDir
  Path services;

  /** Supports {@code memory:} URIs only. */
  public static final class MemoryProvider implements StoreProvider {
    @Override
    public boolean supports(URI uri) {
      return "memory".equals(uri.getScheme());
    }

    @Override
    public Stores open(StoreSettings settings) {
      return new Stores() {
        @Override
        public RateStore rates() {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public PermitStore permits() {
          return new InMemoryPermitStore();
        }

        @Override
        public void close() {}
      };
    }
  }

  private static StoreSettings settings(String uri) {
    return new StoreSettings(
        URI.create(uri), Duration.ofMillis(50), 1, FailurePolicy.LOCAL, NanoClock.system());
  }

  private Optional<Stores> openWithProvider(String uri) throws IOException {
    Path file = services.resolve("META-INF/services/" + StoreProvider.class.getName());
    Files.createDirectories(file.getParent());
    Files.writeString(file, MemoryProvider.class.getName() + "\n", StandardCharsets.UTF_8);
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {services.toUri().toURL()}, before)) {
      thread.setContextClassLoader(loader);
      return StoreLoader.open(settings(uri));
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  @Test
  void theProviderOfTheUrisSchemeOpensTheStores() throws IOException {
    Optional<Stores> stores = openWithProvider("memory://test");

    assertThat(stores).isPresent();
    assertThat(stores.get().permits()).isInstanceOf(InMemoryPermitStore.class);
  }

  @Test
  void aSchemeNoProviderSupportsOpensNothing() throws IOException {
    assertThat(openWithProvider("redis://127.0.0.1:6379")).isEmpty();
  }

  @Test
  void withoutAnyProviderNothingIsOpened() {
    assertThat(StoreLoader.open(settings("memory://test"))).isEmpty();
  }
}
