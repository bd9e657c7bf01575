package dev.fencedlock.redlock.internal;

import dev.fencedlock.spi.TokenOrder;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Proposes fencing tokens in the one token order of all backends ({@link TokenOrder}): a
 * proposal is {@code max(now_ms << 16, highest token this client has seen + 1)}, {@code now_ms}
 * read from the injected wall clock. Whether a
 * proposal becomes a token is decided by the nodes' counters (see {@link RedlockLock}); the clock
 * only makes a good first guess and carries tokens across nodes that lost their counters.
 * Thread-safe.
 */
final class FencingTokens {
    static final int SEQUENCE_BITS = TokenOrder.SEQUENCE_BITS;
    /** How far ahead of this client's clock a token may be and still be taken for real. */
    static final long CEILING_AHEAD_MILLIS = 86_400_000L;

    private final LongSupplier wallClockMillis;
    private final AtomicLong highestSeen = new AtomicLong();

    FencingTokens(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    /** A proposal larger than every token this client handed out or saw. */
    long propose() {
        long now = Math.max(0, wallClockMillis.getAsLong());
        return highestSeen.accumulateAndGet(now, TokenOrder::next);
    }

    /**
     * Remembers a token or counter value seen on a node, so later proposals start above it. A value
     * above the {@link #ceiling()} is ignored: no grant made it, and remembering it would poison
     * every later proposal.
     */
    void observe(long token) {
        if (token > highestSeen.get() && token <= ceiling()) {
            highestSeen.accumulateAndGet(token, Math::max);
        }
    }

    /**
     * The largest value a real token can have now: this client's clock plus a day, shifted. Every
     * token's high bits are some client's clock reading, and clocks are assumed within far less than
     * a day of each other (the same assumption as the quarantine's, {@link RedlockLock}); a counter
     * above it was written by something else (an operator, a bug, corruption) and the scripts
     * replace it like a missing one.
     */
    long ceiling() {
        return (Math.max(0, wallClockMillis.getAsLong()) + CEILING_AHEAD_MILLIS) << SEQUENCE_BITS;
    }

    /**
     * The token to write back when the proposal was refused by some counters: one more than both
     * the proposal and the highest counter any node returned.
     */
    static long fallback(long proposal, long highestCounter) {
        return Math.max(proposal, highestCounter) + 1;
    }
}
