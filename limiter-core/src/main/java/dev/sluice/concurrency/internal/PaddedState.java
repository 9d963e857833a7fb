package dev.sluice.concurrency.internal;

/**
 * The limiter's one hot atomic word, alone on its cache lines.
 *
 * <p>Every acquire and release CASes {@link StateWord#state}; every acquire also reads the
 * limiter's final fields (clock, limit source, stats). Were they on the same 64-byte line, each CAS
 * on one core would evict the line from the other core's cache, and the other core's reads of
 * fields that never change would miss too (false sharing). {@code @Contended} is not available to
 * library code, so the word is fenced by 128 bytes of padding on each side (two lines: AMD and
 * Intel prefetch adjacent line pairs) through the class hierarchy, because HotSpot lays out a
 * superclass's fields before its subclass's and keeps them in declaration order per class.
 */
abstract class PaddedState extends StateWord {
  long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}

/** The hot word; see {@link PaddedState}. */
abstract class StateWord extends StatePadding {
  /** [shut down:1][queued:31][in flight:32]; see {@link BoundedQueueLimiter}. */
  volatile long state;
}

/** Padding before the hot word; see {@link PaddedState}. */
abstract class StatePadding {
  long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}
