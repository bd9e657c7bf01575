package dev.fencedlock.redlock.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Proposes fencing tokens. A token is a 63-bit number whose high bits are wall-clock milliseconds
 * and whose low {@value #SEQUENCE_BITS} bits leave room for many grants within one millisecond:
 * a proposal is {@code max(now_ms << 16, highest token this client has seen + 1)}. Whether a
 * proposal becomes a token is decided by the nodes' counters (see {@link RedlockLock}); the clock
 * only makes a good first guess and carries tokens across nodes that lost their counters.
 * Thread-safe.
 */
final class FencingTokens {
    static final int SEQUENCE_BITS = 16;

    private final LongSupplier wallClockMillis;
    private final AtomicLong highestSeen = new AtomicLong();

    FencingTokens(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    /** A proposal larger than every token this client handed out or saw. */
    long propose() {
        long fromClock = Math.max(0, wallClockMillis.getAsLong()) << SEQUENCE_BITS;
        return highestSeen.accumulateAndGet(fromClock, (highest, clock) -> Math.max(clock, highest + 1));
    }

    /** Remembers a token or counter value seen on a node, so later proposals start above it. */
    void observe(long token) {
        if (token > highestSeen.get()) {
            highestSeen.accumulateAndGet(token, Math::max);
        }
    }

    /**
     * The token to write back when the proposal was refused by some counters: one more than both
     * the proposal and the highest counter any node returned.
     */
    static long fallback(long proposal, long highestCounter) {
        return Math.max(proposal, highestCounter) + 1;
    }
}
