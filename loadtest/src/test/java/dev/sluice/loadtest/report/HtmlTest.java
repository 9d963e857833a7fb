package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HtmlTest {

  @Test
  void escapesTheFiveCharactersThatMeanSomethingInTextAndAttributes() {
    assertThat(Html.escape("a & b < c > d \"e\" 'f'"))
        .isEqualTo("a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;");
  }

  @Test
  void anAmpersandIsEscapedOnceSoAnEntityInTheTextStaysVisible() {
    assertThat(Html.escape("&lt;")).isEqualTo("&amp;lt;");
  }

  @Test
  void leavesOtherTextAsItIsAndNullIsEmpty() {
    assertThat(Html.escape("70 ± 5 % (aim ≥ 95%)")).isEqualTo("70 ± 5 % (aim ≥ 95%)");
    assertThat(Html.escape(null)).isEmpty();
  }
}
