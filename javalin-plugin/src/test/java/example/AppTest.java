package example;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The root README's first Java snippet is this package's App.java, word for word: it compiles with
 * the build, uses only public API, and runs.
 */
class AppTest {

  @Test
  void theReadmeShowsAppJavaWordForWord() throws Exception {
    String app = Files.readString(Path.of("src/test/java/example/App.java"));
    String code = app.substring(app.indexOf("import ")).strip(); // without the package line
    String readme = read("../README.md");
    assertThat(readme).contains(code);
  }

  @Tag("integration")
  @Test
  void theSnippetRuns() throws Exception {
    Javalin app = App.create().start("127.0.0.1", 0);
    try {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + app.port();
      HttpResponse<String> job = client.send(
          HttpRequest.newBuilder(URI.create(base + "/api/transcode"))
              .POST(HttpRequest.BodyPublishers.ofString("video"))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(job.statusCode()).isEqualTo(200);
      String status = client
          .send(
              HttpRequest.newBuilder(URI.create(base + "/sluice")).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
      assertThat(status).contains("\"name\":\"transcode\"").contains("\"admitted\":1");
      String metrics = client
          .send(
              HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
      assertThat(metrics).contains("sluice_concurrency_limit{limiter=\"transcode\"}");
    } finally {
      app.stop();
    }
  }

  private static String read(String path) throws Exception {
    Path p = Path.of(path);
    return Files.exists(p) ? Files.readString(p) : "";
  }
}
