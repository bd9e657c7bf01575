package dev.fencedlock;

/**
 * The lease is no longer held: it expired, it was released, a renewal found another holder, or
 * the backend reported the loss (for example a ZooKeeper session that was suspended or expired).
 * Thrown by operations on such a lease and passed to {@link LeaseLostListener}s; {@link #reason()}
 * classifies it.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /** Why a lease was lost: a small, fixed set, fit for a metric tag. */
    public enum Reason {
        /**
         * Its validity ran out: a fixed lease reached its end, the hold-time cap was reached, or its
         * renewal was stopped ({@link dev.fencedlock.spi.AbstractLease#stopRenewal}).
         */
        EXPIRED,
        /** The backend says another grant holds the lock now. */
        TAKEN_OVER,
        /** Renewals could not reach the backend until the validity ran out. */
        RENEWAL_FAILED,
        /** The backend's session that held the lock was suspended or lost (ZooKeeper). */
        SESSION_LOST,
        /** Anything else, and losses reported by providers that give no reason. */
        OTHER
    }

    private final String lockName;
    private final long token;
    private final Reason reason;

    /** A loss with reason {@link Reason#OTHER}. */
    public LeaseLostException(String lockName, long token, String detail) {
        this(lockName, token, Reason.OTHER, detail, null);
    }

    /** A loss with reason {@link Reason#OTHER}. */
    public LeaseLostException(String lockName, long token, String detail, Throwable cause) {
        this(lockName, token, Reason.OTHER, detail, cause);
    }

    /**
     * @param detail what happened, for the message
     */
    public LeaseLostException(String lockName, long token, Reason reason, String detail, Throwable cause) {
        super("Lease on lock '" + lockName + "' with token " + token + " is no longer held: " + detail, cause);
        this.lockName = lockName;
        this.token = token;
        this.reason = reason == null ? Reason.OTHER : reason;
    }

    public String lockName() {
        return lockName;
    }

    /** The fencing token of the lease that was lost. */
    public long token() {
        return token;
    }

    /** Why the lease was lost; never null. */
    public Reason reason() {
        return reason;
    }
}
