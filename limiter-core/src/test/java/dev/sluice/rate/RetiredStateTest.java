package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The interleavings of a sweep retiring a state and a decision updating it, forced one by one: the
 * decision's permit always ends up in the state the map holds.
 */
class RetiredStateTest {

  private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

  private final VirtualTime time = new VirtualTime();

  @Test
  void aDecisionOnAStateSweptMeanwhileIsMadeAgainOnTheKeysNewState() {
    SweepingFirst algorithm = new SweepingFirst(new TokenBucket(TEN_PER_SECOND));
    KeyedRateLimiter<LongState> limiter = new KeyedRateLimiter<>(
        Algorithm.TOKEN_BUCKET,
        TEN_PER_SECOND,
        algorithm,
        time,
        100,
        Duration.ofSeconds(1).toNanos());
    limiter.tryAcquire("k", 10);
    time.advance(Duration.ofSeconds(1)); // full again: the next sweep drops it
    algorithm.beforeNextDecision = limiter::trackedKeys; // the sweep runs after the lookup
    assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
    assertThat(limiter.trackedKeys())
        .as("the permits live in the key's new state")
        .isEqualTo(1);
    assertThat(limiter.tryAcquire("k", 6).allowed()).isTrue();
    assertThat(limiter.tryAcquire("k", 1).allowed())
        .as("4 + 6 taken: nothing was lost")
        .isFalse();
  }

  @Test
  void aStateUpdatedWhileBeingJudgedIsNotRetired() {
    LongState state = new LongState(0);
    boolean retired = state.retireIf(value -> {
      state.compareAndSet(value, value + 1); // a decision lands between the judgement and the mark
      return true;
    });
    assertThat(retired).isFalse();
    assertThat(state.live()).isTrue();
    assertThat(state.retireIf(value -> true))
        .as("a later sweep may still retire it")
        .isTrue();
    assertThat(state.live()).isFalse();
  }

  @Test
  void aDecisionThatSeesTheStateBeingRetiredKeepsIt() {
    LongState state = new LongState(0);
    assertThat(state.beginRetiring()).isTrue();
    state.compareAndSet(0, 1); // the decision's update, then its check
    assertThat(state.live()).as("the decision claims the state back").isTrue();
    assertThat(state.completeRetiring()).as("so the sweep gives up").isFalse();
    assertThat(state.live()).isTrue();
  }

  @Test
  void aStateRetiredUnderItsMonitorIsSeenRetiredByTheNextDecision() {
    SlidingLog log = new SlidingLog(TEN_PER_SECOND);
    SlidingLog.Log state = log.newState(0);
    assertThat(log.tryAcquire(state, 0, 1).allowed()).isTrue();
    assertThat(log.retireIfFullFor(state, Duration.ofSeconds(1).toNanos() - 1, 0))
        .as("not full yet")
        .isFalse();
    assertThat(log.retireIfFullFor(state, Duration.ofSeconds(1).toNanos(), 0)).isTrue();
    assertThat(state.live()).isFalse();
  }

  /** A token bucket that runs a hook once between a decision's lookup and its update. */
  private static final class SweepingFirst extends ForwardingAlgorithm<LongState> {
    Runnable beforeNextDecision;

    SweepingFirst(TokenBucket bucket) {
      super(bucket);
    }

    @Override
    public boolean decide(LongState state, long now, long cost, RateOutcome into) {
      Runnable hook = beforeNextDecision;
      beforeNextDecision = null;
      if (hook != null) {
        hook.run();
      }
      return super.decide(state, now, cost, into);
    }
  }
}
