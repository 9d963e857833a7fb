package dev.sluice.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The live page every HTTP door serves: one self-contained HTML page (no CDN, no external font: it
 * must work where the service has no internet access) that polls {@code <its own path>/data}, the
 * {@link StatusReport} JSON, every second. A door serves the page at its path and the JSON at
 * {@link #dataPath}, both past its limiters and rules, like health checks: the page is most needed
 * when the service is saturated.
 *
 * <pre>{@code
 * String html = DashboardPage.html();
 * String data = DashboardPage.dataPath("/sluice/dashboard"); // "/sluice/dashboard/data"
 * }</pre>
 */
public final class DashboardPage {

  /** The content type of the page. */
  public static final String CONTENT_TYPE = "text/html; charset=utf-8";

  private static final String RESOURCE = "dev/sluice/http/dashboard.html";

  private DashboardPage() {}

  /** Where the page reads its data when served at {@code base} (a trailing slash is dropped). */
  public static String dataPath(String base) {
    return base(base) + "/data";
  }

  /** {@code path} without its trailing slash. */
  public static String base(String path) {
    return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  /**
   * The page, read from this module's jar.
   *
   * @throws IllegalStateException when the resource is missing from the jar
   */
  public static String html() {
    try (InputStream in = DashboardPage.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the sluice-http jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
