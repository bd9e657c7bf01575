package dev.fencedlock.jdbc;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A lease with a token the test chooses, valid until closed: for the guard's reactions to given
 * token orders, where a real backend's tokens cannot be picked. Tests of leases themselves use
 * real backends.
 */
final class FixedLease implements Lease {
    private final String lockName;
    private final long token;
    private final Duration remaining;
    private volatile boolean closed;

    FixedLease(String lockName, long token) {
        this(lockName, token, Duration.ofMinutes(1));
    }

    /** A lease whose {@link #remaining()} stays {@code remaining} until closed. */
    FixedLease(String lockName, long token, Duration remaining) {
        this.lockName = lockName;
        this.token = token;
        this.remaining = remaining;
    }

    @Override
    public String lockName() {
        return lockName;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean isValid() {
        return !closed;
    }

    @Override
    public Duration remaining() {
        return closed ? Duration.ZERO : remaining;
    }

    @Override
    public void extend(Duration leaseTime) {}

    @Override
    public void onLost(LeaseLostListener listener) {}

    @Override
    public void close() {
        closed = true;
    }
}
