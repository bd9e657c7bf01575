package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ValidityTest {
    private static final long MS = 1_000_000L;

    @Test
    void driftIsAFractionOfTheLeasePlusTwoMilliseconds() {
        assertThat(Validity.driftNanos(10_000 * MS, 0.01)).isEqualTo(102 * MS);
        assertThat(Validity.driftNanos(10_000 * MS, 0.0)).isEqualTo(2 * MS);
    }

    @Test
    void validityIsTheLeaseLessElapsedTimeAndDrift() {
        AtomicLong clock = new AtomicLong(5_000 * MS);
        long start = clock.get();
        clock.addAndGet(40 * MS);
        long validity = Validity.remainingNanos(1_000 * MS, clock.get() - start, 0.01);
        assertThat(validity).isEqualTo((1_000 - 40 - 10 - 2) * MS);
    }

    @Test
    void aGrantThatTookTheWholeLeaseHasNoValidity() {
        long ttl = Duration.ofMillis(100).toNanos();
        assertThat(Validity.remainingNanos(ttl, 97 * MS, 0.01)).isZero();
        assertThat(Validity.remainingNanos(ttl, 96 * MS, 0.01)).isPositive();
        assertThat(Validity.remainingNanos(ttl, 500 * MS, 0.01)).isNegative();
        assertThat(Validity.remainingNanos(MS, 0, 0.01))
                .as("a 1 ms lease never survives the 2 ms allowance")
                .isNegative();
    }
}
