package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeclaredCostTest {

  private final DeclaredCost cost = new DeclaredCost("X-Footage-Cost");

  private static Footage footage(double seconds, int height) {
    return new Footage(seconds, height * 16 / 9, height, 25);
  }

  @Test
  void aUnitIsTenSecondsOf360pRoundedUpAtLeastOne() {
    assertThat(DeclaredCost.units(10, 360)).isEqualTo(1);
    assertThat(DeclaredCost.units(2, 360)).isEqualTo(1);
    assertThat(DeclaredCost.units(20, 360)).isEqualTo(2);
    assertThat(DeclaredCost.units(60, 720)).isEqualTo(12);
    assertThat(DeclaredCost.units(10.04, 360))
        .isEqualTo(2); // a container a frame long: the tolerance absorbs it
  }

  @Test
  void theToleranceIsAQuarterOfTheUnitsAtLeastOne() {
    assertThat(DeclaredCost.tolerance(1)).isEqualTo(1);
    assertThat(DeclaredCost.tolerance(4)).isEqualTo(1);
    assertThat(DeclaredCost.tolerance(12)).isEqualTo(3);
  }

  @Test
  void anHonestDeclarationAndOneOffByRoundingPass() {
    assertThatCode(() -> cost.verify(12, footage(60, 720))).doesNotThrowAnyException();
    assertThatCode(() -> cost.verify(1, footage(10.04, 360))).doesNotThrowAnyException();
    assertThatCode(() -> cost.verify(9, footage(60, 720))).doesNotThrowAnyException();
  }

  @Test
  void aLongJobDeclaredShortIs422NamingBothFigures() {
    assertThatThrownBy(() -> cost.verify(1, footage(60, 720)))
        .isInstanceOfSatisfying(JobProblem.class, p -> {
          assertThat(p.status).isEqualTo(422);
          assertThat(p.problem).isEqualTo("cost-mismatch");
        })
        .hasMessage("X-Footage-Cost declared 1 but the footage (60.0 s at 720p) costs 12"
            + " (ceil(seconds x height / 3600), give or take 3)");
  }

  @Test
  void aShortJobDeclaredLongIsRefusedToo() {
    assertThatThrownBy(() -> cost.verify(12, footage(2, 360))).hasMessageContaining("declared 12");
  }

  @Test
  void aDeclarationThatIsNotAWholeNumberAtLeastOneIs400NamingTheHeaderAndValue() {
    assertThat(cost.parse(" 3 ")).isEqualTo(3);
    for (String bad : new String[] {"0", "-2", "1.5", "many"}) {
      assertThatThrownBy(() -> cost.parse(bad))
          .isInstanceOfSatisfying(JobProblem.class, p -> assertThat(p.status).isEqualTo(400))
          .hasMessageContaining("X-Footage-Cost")
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
