package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.http.Context;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * The path the limiters and rules see, without a server: the request's path without the
 * application's context path, and never empty. A stand-in context answers only its path and
 * context path.
 */
class GatePathTest {

  private static Context request(String path, String contextPath) {
    return (Context) Proxy.newProxyInstance(
        GatePathTest.class.getClassLoader(),
        new Class<?>[] {Context.class},
        (proxy, m, args) -> switch (m.getName()) {
          case "path" -> path;
          case "contextPath" -> contextPath;
          default -> throw new UnsupportedOperationException(m.getName());
        });
  }

  @Test
  void theContextPathIsCutOffAndWhatIsLeftIsNeverEmpty() {
    assertThat(Gate.path(request("/app/api/work", "/app"))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/app", "/app"))).as("the application's root").isEqualTo("/");
  }

  @Test
  void withoutAContextPathThePathStaysAsItIs() {
    assertThat(Gate.path(request("/api/work", null))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/api/work", ""))).isEqualTo("/api/work");
    assertThat(Gate.path(request("/api/work", "/"))).isEqualTo("/api/work");
    assertThat(Gate.path(request("", null))).isEqualTo("/");
    assertThat(Gate.path(request("", "/"))).isEqualTo("/");
  }

  @Test
  void aPathOutsideTheContextPathIsNotCut() {
    assertThat(Gate.path(request("/other/api", "/app"))).isEqualTo("/other/api");
  }
}
