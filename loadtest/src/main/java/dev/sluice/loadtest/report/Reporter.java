package dev.sluice.loadtest.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a {@link Report}: {@code report.html} by {@link HtmlRenderer} and {@code summary.json}
 * from the same report's summary. The one writer of both files.
 */
public final class Reporter {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Reporter() {}

  /**
   * Writes both files into {@code out} (which exists), prints the page's verdicts on the console
   * ({@link #line}) and returns the page's path.
   */
  public static Path write(Report report, Path out) throws IOException {
    if (!report.summary().isEmpty()) {
      writeJson(out.resolve("summary.json"), report.summary());
    }
    Path page = out.resolve("report.html");
    Files.writeString(page, HtmlRenderer.render(report), StandardCharsets.UTF_8);
    report.verdicts().forEach(v -> System.out.println(line(v)));
    return page;
  }

  /** A verdict on the console, where no colour tells its outcome: {@code verdict [missed] text}. */
  public static String line(Verdict verdict) {
    return "verdict [" + verdict.outcome().label() + "] " + verdict.text();
  }

  /** Any figures as indented JSON, the way {@code summary.json} is written. */
  public static void writeJson(Path file, Object figures) throws IOException {
    JSON.writeValue(file.toFile(), figures);
  }

  /** {@code summary.json}'s text, as {@link #write} writes it. */
  public static String json(Report report) throws IOException {
    return JSON.writeValueAsString(report.summary());
  }
}
