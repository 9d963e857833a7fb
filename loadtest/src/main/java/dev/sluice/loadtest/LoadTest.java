package dev.sluice.loadtest;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The command line: runs the experiment {@code --scenario} names against a service (or demo
 * services it starts) and writes its report.
 *
 * <pre>java -jar loadtest/target/loadtest.jar --embedded --scenario monday-maintenance --ab</pre>
 */
public final class LoadTest {

  private LoadTest() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (Options.wantsHelp(args)) {
      System.out.println(Options.USAGE);
      return;
    }
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Path report = run(options);
    System.out.println("report: " + report.toAbsolutePath().toUri());
  }

  /** Runs what the options say and returns the report's path. */
  public static Path run(Options options) throws Exception {
    Files.createDirectories(options.out());
    return options.experiment().run(options);
  }
}
