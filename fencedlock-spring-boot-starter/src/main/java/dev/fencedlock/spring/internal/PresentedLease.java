package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A token a request presented, standing in for the lease its sender holds so that a {@code
 * @FencedBy} call fences its transactions through the same path as a {@code @Locked} call: always
 * valid here (the receiver cannot see the sender's lease; the fence row decides), its remaining time
 * the receiver's bound on the wait for the fence row and on idling in a transaction. Nothing to
 * release or extend. Immutable and thread-safe.
 */
final class PresentedLease implements Lease {
    /** What {@link #backend()} says, so that observers can tell a presented token from a held lease. */
    static final String BACKEND = "presented";

    private final String lockName;
    private final long token;
    private final Duration bound;

    PresentedLease(String lockName, long token, Duration bound) {
        this.lockName = lockName;
        this.token = token;
        this.bound = bound;
    }

    @Override
    public String lockName() {
        return lockName;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public long token() {
        return token;
    }

    /** Always true: the fence row, not this receiver, refuses a stale token. */
    @Override
    public boolean isValid() {
        return true;
    }

    /** The receiver's bound ({@code fencedlock.token.receiver-bound}), the same for every transaction. */
    @Override
    public Duration remaining() {
        return bound;
    }

    /**
     * @throws UnsupportedOperationException always: the lease is the sender's
     */
    @Override
    public void extend(Duration leaseTime) {
        throw new UnsupportedOperationException("token " + token + " of lock '" + lockName
                + "' was presented by a request: the lease is its sender's, and a receiver can neither extend"
                + " nor release it");
    }

    /** Does nothing: a receiver is not told when the sender's lease is lost. */
    @Override
    public void onLost(LeaseLostListener listener) {}

    /** Does nothing: there is nothing to release. */
    @Override
    public void close() {}

    @Override
    public String toString() {
        return "PresentedLease[" + lockName + ", token " + token + "]";
    }
}
