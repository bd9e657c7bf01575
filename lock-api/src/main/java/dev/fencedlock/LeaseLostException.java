package dev.fencedlock;

/**
 * The lease is no longer held: it expired, it was released, a renewal found another holder, or
 * the backend reported the loss (for example a ZooKeeper session that was suspended or expired).
 * Thrown by operations on such a lease and passed to {@link LeaseLostListener}s.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long token;

    public LeaseLostException(String lockName, long token, String reason) {
        this(lockName, token, reason, null);
    }

    public LeaseLostException(String lockName, long token, String reason, Throwable cause) {
        super("Lease on lock '" + lockName + "' with token " + token + " is no longer held: " + reason, cause);
        this.lockName = lockName;
        this.token = token;
    }

    public String lockName() {
        return lockName;
    }

    /** The fencing token of the lease that was lost. */
    public long token() {
        return token;
    }
}
