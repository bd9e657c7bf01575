package dev.fencedlock.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * One call to acquire a lock, as handed to {@link AbstractFencedLock#doAcquire}. Confined to the
 * acquiring thread.
 */
public final class LeaseRequest {
    private final String lockName;
    private final Duration leaseTime;
    private final boolean autoRenew;
    private final long startNanos;
    private final long deadlineNanos;
    private String lastAttempt = "";
    private String grantWithoutValidity;

    LeaseRequest(String lockName, Duration leaseTime, boolean autoRenew, long startNanos, Duration wait) {
        this.lockName = lockName;
        this.leaseTime = leaseTime;
        this.autoRenew = autoRenew;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + saturatedNanos(wait);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return Math.min(duration.toNanos(), Long.MAX_VALUE / 4);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    public String lockName() {
        return lockName;
    }

    /** Length of the lease to grant. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Whether the lease will be renewed automatically. */
    public boolean autoRenew() {
        return autoRenew;
    }

    /** When the call began, on the runtime's monotonic clock. */
    public long startNanos() {
        return startNanos;
    }

    /** When waiting must stop, on the runtime's monotonic clock. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Wait left at {@code nowNanos}; zero or negative once the wait is spent. */
    public long remainingWaitNanos(long nowNanos) {
        return deadlineNanos - nowNanos;
    }

    /**
     * Records what the latest attempt saw (for example {@code "2 of 5 nodes granted, 3 needed"}),
     * so that a timeout message can say it.
     */
    public void recordAttempt(String description) {
        this.lastAttempt = description == null ? "" : description;
    }

    /** What {@link #recordAttempt} last recorded; empty if nothing was. */
    public String lastAttempt() {
        return lastAttempt;
    }

    /**
     * Records that an attempt won the lock but its grant had no validity left by the time it could
     * be handed out: the lease time went on the grant itself (a round trip, the drift allowance),
     * so the backend let the grant go. If the request then ends without a lease, the acquisition
     * fails with a {@link dev.fencedlock.LockException} saying so, instead of answering as if
     * another holder had the lock: the lease time, not a holder, kept the lock from the caller.
     *
     * @param description how long the grant took, and of what lease time
     */
    public void recordGrantWithoutValidity(String description) {
        this.grantWithoutValidity = description == null ? "" : description;
    }

    /** What {@link #recordGrantWithoutValidity} recorded for this request, if it was called. */
    public Optional<String> grantWithoutValidity() {
        return Optional.ofNullable(grantWithoutValidity);
    }
}
