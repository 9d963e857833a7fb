package dev.sluice.loadtest.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ThreadCountTest {

  /** The head of a JVM's /proc/<pid>/status, as Linux 6 writes it. */
  private static final String STATUS = """
      Name:	java
      Umask:	0022
      State:	S (sleeping)
      Tgid:	4242
      Pid:	4242
      PPid:	4100
      VmRSS:	  182340 kB
      Threads:	37
      SigQ:	0/31451
      """;

  @Test
  void theThreadsLineOfAStatusIsTheCount() {
    assertThat(ThreadCount.parse(STATUS)).isEqualTo(OptionalInt.of(37));
  }

  @Test
  void aStatusWithoutAThreadsLineOrWithAGarbledOneGivesNoCount() {
    assertThat(ThreadCount.parse("")).isEmpty();
    assertThat(ThreadCount.parse("Name:\tjava\nPid:\t1\n")).isEmpty();
    assertThat(ThreadCount.parse("Threads:\tmany\n")).isEmpty();
    // a line that merely contains the word is not the field
    assertThat(ThreadCount.parse("Name:\tThreads: 9\n")).isEmpty();
  }

  @Test
  void aProcessWithoutAStatusGivesNoCount() {
    // pids are below 2^22 on Linux; no process has this one
    assertThat(ThreadCount.of(Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void theRangeIsTheFewestTheMedianAndTheMostRead() {
    ThreadCount.Range r = ThreadCount.Range.of(List.of(40, 37, 52, 38, 41));

    assertThat(r).isEqualTo(new ThreadCount.Range(5, 37, 40, 52));
    assertThat(r.measured()).isTrue();
    // an even count takes the lower middle: a reading that was made, not an average
    assertThat(ThreadCount.Range.of(List.of(30, 10, 20, 40)).median()).isEqualTo(20);
    assertThat(ThreadCount.Range.of(List.of())).isEqualTo(ThreadCount.Range.NONE);
    assertThat(ThreadCount.Range.NONE.measured()).isFalse();
  }
}
