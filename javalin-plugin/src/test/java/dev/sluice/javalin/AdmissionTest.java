package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request's record of the permits it holds, on real limiters: each permit is given back once
 * when the request ends, one granted after the end is given back at once, and parking is undone
 * by the grant.
 */
class AdmissionTest {

  private final ConcurrencyLimiter a = limiter("a");
  private final ConcurrencyLimiter b = limiter("b");
  private final ConcurrencyLimiter c = limiter("c");

  private static ConcurrencyLimiter limiter(String name) {
    return ConcurrencyLimiter.of(name, LimiterSpec.custom().maxConcurrency(4).build());
  }

  @AfterEach
  void shutdown() {
    a.shutdown();
    b.shutdown();
    c.shutdown();
  }

  private static Permit permit(ConcurrencyLimiter limiter) {
    return limiter.acquire().join();
  }

  @Test
  void theRecordHoldsEachLimitersPermitAndGivesThemAllBackOnceAtTheEnd() {
    Admission admission = new Admission();
    assertThat(admission.holds("a")).isFalse();

    assertThat(admission.hold("a", permit(a))).isTrue();
    assertThat(admission.hold("b", permit(b))).isTrue();
    assertThat(admission.hold("c", permit(c))).isTrue();
    assertThat(admission.holds("a")).isTrue();
    assertThat(admission.holds("b")).isTrue();
    assertThat(admission.holds("c")).isTrue();
    assertThat(admission.holds("d")).isFalse();
    assertThat(a.snapshot().inFlight()).isEqualTo(1);
    assertThat(b.snapshot().inFlight()).isEqualTo(1);
    assertThat(c.snapshot().inFlight()).isEqualTo(1);
    assertThat(admission.isClosed()).isFalse();

    admission.close();
    assertThat(admission.isClosed()).isTrue();
    assertThat(a.snapshot().inFlight()).isZero();
    assertThat(b.snapshot().inFlight()).isZero();
    assertThat(c.snapshot().inFlight()).isZero();

    // a second end gives nothing back twice: others' permits stay counted
    Permit other = permit(a);
    admission.close();
    assertThat(a.snapshot().inFlight()).isEqualTo(1);
    other.release();
  }

  @Test
  void aPermitGrantedAfterTheRequestEndedIsGivenBackAtOnce() {
    Admission admission = new Admission();
    admission.close();
    assertThat(admission.hold("a", permit(a))).isFalse();
    assertThat(a.snapshot().inFlight()).isZero();
    assertThat(admission.holds("a")).isFalse();
  }

  @Test
  void aRecordWithoutPermitsEndsQuietly() {
    Admission admission = new Admission();
    admission.close();
    assertThat(admission.isClosed()).isTrue();
  }

  @Test
  void parkingIsUndoneByTheGrantAndAClientThatLeftIsRemembered() {
    Admission admission = new Admission();
    assertThat(admission.isParked()).isFalse();
    assertThat(admission.parkedOn()).isNull();

    CompletableFuture<Permit> waiting = new CompletableFuture<>();
    admission.park(waiting);
    assertThat(admission.isParked()).isTrue();
    assertThat(admission.parkedOn()).isSameAs(waiting);
    assertThat(admission.isClientGone()).isFalse();
    admission.clientGone();
    assertThat(admission.isClientGone()).isTrue();

    admission.hold("a", permit(a));
    assertThat(admission.isParked()).isFalse();
    assertThat(admission.parkedOn()).isNull();
    admission.close();
    assertThat(a.snapshot().inFlight()).isZero();
  }
}
