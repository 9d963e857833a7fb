package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FailurePolicyTest {

  @Test
  void eachPolicyIsReadFromItsNameInAnyCaseAroundBlanks() {
    assertThat(FailurePolicy.parse("local")).isEqualTo(FailurePolicy.LOCAL);
    assertThat(FailurePolicy.parse(" Allow ")).isEqualTo(FailurePolicy.ALLOW);
    assertThat(FailurePolicy.parse("DENY")).isEqualTo(FailurePolicy.DENY);
  }

  @Test
  void anUnknownPolicyIsRefusedNamingTheValueAndTheChoices() {
    assertThatThrownBy(() -> FailurePolicy.parse("open"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown failure policy 'open'; allowed: local, allow, deny");
  }

  @Test
  void aMissingPolicyIsRefused() {
    assertThatThrownBy(() -> FailurePolicy.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown failure policy 'null'; allowed: local, allow, deny");
  }

  @Test
  void aPolicyIsWrittenAsItIsConfigured() {
    assertThat(FailurePolicy.LOCAL).hasToString("local");
    assertThat(FailurePolicy.parse(FailurePolicy.DENY.toString())).isEqualTo(FailurePolicy.DENY);
  }
}
