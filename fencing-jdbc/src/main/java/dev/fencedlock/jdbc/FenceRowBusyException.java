package dev.fencedlock.jdbc;

import dev.fencedlock.LockException;
import java.time.Duration;
import java.util.Optional;

/**
 * The fence guard waited as long as it may for the lock's fence row and an older transaction of the
 * lock still holds it: typically a holder that stalled inside its fenced transaction (a long pause,
 * a stopped process) with its connection open. Nothing of the waiting transaction ran; it has been
 * rolled back. Trying again later can succeed: on PostgreSQL the stalled transaction is ended by
 * the server once it has sat idle for its own lease's remaining time.
 *
 * <p>Database layers translate it as a lock-acquisition failure (Spring's {@code
 * CannotAcquireLockException}, JPA's {@code LockTimeoutException}), so retry policies keyed on
 * concurrency failures retry it.
 */
public class FenceRowBusyException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long token;
    private final Duration waited;
    private final String holder;

    /**
     * @param waited how long the guard was allowed to wait (its bound), or null if the database's
     *     own lock timeout ended the wait
     * @param holder what the database says of the transaction holding the row (process id, how
     *     long it has been open and idle), or null if it does not say
     * @param cause the database's lock-timeout failure
     */
    public FenceRowBusyException(String lockName, long token, Duration waited, String holder, Throwable cause) {
        super(message(lockName, token, waited, holder), cause);
        this.lockName = lockName;
        this.token = token;
        this.waited = waited;
        this.holder = holder;
    }

    private static String message(String lockName, long token, Duration waited, String holder) {
        return "The fence row of lock '" + lockName + "' is held by an older transaction of the lock"
                + (holder == null ? "" : " (" + holder + ")") + "; the transaction with token " + token
                + " waited " + (waited == null ? "the database's lock timeout" : waited.toMillis() + " ms")
                + " for it and was rolled back. A holder that stalls inside its fenced transaction keeps the row"
                + " until its transaction ends; see docs/fencing.md, bounded waits";
    }

    public String lockName() {
        return lockName;
    }

    /** The token of the transaction that gave up waiting. */
    public long token() {
        return token;
    }

    /** How long the guard was allowed to wait; empty when the database's own lock timeout ended it. */
    public Optional<Duration> waited() {
        return Optional.ofNullable(waited);
    }

    /** What the database said of the transaction holding the row; empty when it says nothing. */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }
}
