package dev.fencedlock.jdbc;

import dev.fencedlock.LockException;

/**
 * A fenced transaction was refused because a later holder of the same lock has already registered
 * a newer token in the database. Nothing the refused transaction wrote is kept once it is rolled
 * back ({@link JdbcFencing#inTransaction} rolls back before this propagates). Retrying with the
 * same lease cannot succeed: the lease is stale, acquire the lock again.
 */
public class StaleTokenException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long staleToken;
    private final long newerToken;

    public StaleTokenException(String lockName, long staleToken, long newerToken) {
        this(lockName, staleToken, newerToken, null);
    }

    /**
     * @param cause the database failure the refusal was hidden behind (a serialization failure, a
     *     deadlock, a lock timeout), or null
     */
    public StaleTokenException(String lockName, long staleToken, long newerToken, Throwable cause) {
        super(
                "Token " + staleToken + " of lock '" + lockName + "' is stale: the database already holds token "
                        + newerToken + " of a later holder; the transaction is refused",
                cause);
        this.lockName = lockName;
        this.staleToken = staleToken;
        this.newerToken = newerToken;
    }

    public String lockName() {
        return lockName;
    }

    /** The token of the refused transaction. */
    public long staleToken() {
        return staleToken;
    }

    /** The larger token the database held when the transaction was refused. */
    public long newerToken() {
        return newerToken;
    }
}
