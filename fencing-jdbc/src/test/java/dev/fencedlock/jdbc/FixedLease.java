package dev.fencedlock.jdbc;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A lease with a token the test chooses, valid until closed (or until its time runs out, {@link
 * #expiringAfter}): for the guard's reactions to given
 * token orders, where a real backend's tokens cannot be picked. Tests of leases themselves use
 * real backends.
 */
final class FixedLease implements Lease {
    private final String lockName;
    private final long token;
    private final Duration remaining;
    /** {@link System#nanoTime()} at which a lease made by {@link #expiringAfter} runs out; else null. */
    private final Long deadline;

    private volatile boolean closed;

    FixedLease(String lockName, long token) {
        this(lockName, token, Duration.ofMinutes(1));
    }

    /** A lease whose {@link #remaining()} stays {@code remaining} until closed. */
    FixedLease(String lockName, long token, Duration remaining) {
        this(lockName, token, remaining, null);
    }

    private FixedLease(String lockName, long token, Duration remaining, Long deadline) {
        this.lockName = lockName;
        this.token = token;
        this.remaining = remaining;
        this.deadline = deadline;
    }

    /**
     * A lease that runs out {@code leaseTime} from now by this JVM's monotonic clock, which runs on
     * while the JVM is stopped: a holder continued after a stop finds it expired.
     */
    static FixedLease expiringAfter(String lockName, long token, Duration leaseTime) {
        return new FixedLease(lockName, token, leaseTime, System.nanoTime() + leaseTime.toNanos());
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
        return !closed && (deadline == null || deadline - System.nanoTime() > 0);
    }

    @Override
    public Duration remaining() {
        if (closed) {
            return Duration.ZERO;
        }
        if (deadline == null) {
            return remaining;
        }
        long left = deadline - System.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
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
