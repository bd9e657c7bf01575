package dev.fencedlock.jdbc;

import dev.fencedlock.LockException;
import java.time.Duration;
import java.util.Optional;

/**
 * The fence guard waited as long as it may for the lock's fence row and an older transaction of the
 * lock still holds it: typically a holder that stalled inside its fenced transaction (a long pause,
 * a stopped process) with its connection open. Nothing of the waiting transaction ran; it has been
 * rolled back. Trying again later can succeed once the older transaction has ended.
 *
 * <p>What bounds the two sides (docs/fencing.md, bounded waits):
 *
 * <ul>
 *   <li>the wait that raised this: the waiting guard's bound (its lease's remaining time:
 *       PostgreSQL's {@code lock_timeout} in milliseconds, MariaDB's {@code
 *       innodb_lock_wait_timeout} in whole seconds, rounded up) or, without a bound and on H2, the
 *       database's own lock timeout (H2: the session's {@code LOCK_TIMEOUT});
 *   <li>the stalled holder: PostgreSQL ends its transaction once it has sat idle for its own
 *       lease's remaining time at its guard plus {@link
 *       dev.fencedlock.jdbc.internal.GuardStatements#IDLE_GRACE}; MariaDB closes its connection
 *       after the same, in whole seconds, when its transaction ran under {@link JdbcFencing} (or
 *       the idle bound the guard sets for the session and puts back after the transaction). H2 cannot end it: the row stays held until the holder wakes
 *       (and is refused by its lease check) or its session is closed, so on H2 this exception
 *       repeats for as long as the stall lasts.
 * </ul>
 *
 * <p>Both assume the database server itself runs (a stopped server times nothing out) and are as
 * exact as its timers; the measured times are in {@code docs/reliability.md}.
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
