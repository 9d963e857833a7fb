package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContextRequestInfoTest {

  @Test
  void onlyCanonicalDottedQuadsSkipTheGeneralParser() {
    assertThat(ContextRequestInfo.isDottedQuad("127.0.0.1")).isTrue();
    assertThat(ContextRequestInfo.isDottedQuad("255.255.255.255")).isTrue();
    assertThat(ContextRequestInfo.isDottedQuad("10.0.20.3")).isTrue();
    for (String other : new String[] {
      null,
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3.",
      ".1.2.3",
      "1..2.3",
      "1.2.3.4 ",
      "::1",
      "[::1]",
      "1.2.3.1000",
      "a.b.c.d",
      "1.2.3.4:80",
      "1234.1.1.1"
    }) {
      assertThat(ContextRequestInfo.isDottedQuad(other))
          .as(String.valueOf(other))
          .isFalse();
    }
  }
}
