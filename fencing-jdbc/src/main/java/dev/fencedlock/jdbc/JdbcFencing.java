package dev.fencedlock.jdbc;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.LockException;
import dev.fencedlock.LockNames;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Runs a JDBC transaction under a lease, fenced by the lock's row in {@value
 * FenceTable#DEFAULT_NAME}:
 *
 * <ol>
 *   <li>autocommit off; the lease must be valid, else {@link FenceRefusedException} ({@link
 *       Reason#LEASE_NOT_VALID}) and nothing was run;
 *   <li>the fence guard as the transaction's first statement (on PostgreSQL through its own
 *       driver, pgjdbc, and on MariaDB through Connector/J with {@code allowMultiQueries=true},
 *       sent in the same round trip as the work's first prepared statement, which
 *       the database then runs only if the guard succeeded: see "One round trip" below): a lease
 *       whose token is lower than one already registered for the lock is refused here ({@link
 *       FenceRefusedException}, {@link Reason#NEWER_TOKEN_REGISTERED}), and from here on the
 *       transactions of the lock run one at a time. The wait for an older transaction of the lock
 *       is bounded by the lease's remaining time ({@link FenceRowBusyException} when it runs out),
 *       and so (PostgreSQL, MariaDB) is how long this transaction may sit idle: a holder that
 *       stalls inside it has its transaction ended by the server (docs/fencing.md, bounded waits);
 *   <li>the work;
 *   <li>{@link Lease#isValid()} checked right before the commit: a lease that is no longer valid
 *       rolls back with {@link FenceRefusedException} ({@link Reason#LEASE_NOT_VALID});
 *   <li>commit.
 * </ol>
 *
 * <p>Any failure rolls the transaction back and propagates unchanged, with a failure of the
 * rollback added to it as suppressed, except these. A holder that stalled inside the transaction
 * past its lease, whose transaction the server ended (PostgreSQL SQLState {@code 25P03}, {@link
 * #endedForIdling}; MariaDB a closed connection, SQLState class {@code 08}), fails at its next
 * statement with {@link FenceRefusedException} ({@link Reason#ENDED_BY_DATABASE}), the database's
 * failure as its cause; nothing it wrote was kept. A concurrency failure (serialization failure,
 * deadlock, lock timeout) that hides a refusal (the committed row now holds a newer token) is
 * reported as the {@link FenceRefusedException} it hides, with the failure as its cause. A failure
 * of the commit itself is never translated: its outcome may be in doubt. Autocommit is set back to
 * what it was, whatever happened, and so is what the guard set on the session (MariaDB/MySQL: the
 * mark protected tables' triggers read, MariaDB's idle timeout). Nothing else of the connection is
 * changed: the transaction runs at
 * the connection's isolation level (set it before the call; the fence gives its guarantee at every
 * level), and the work must not change it, commit, roll back or switch autocommit on.
 *
 * <p><b>One round trip.</b> On PostgreSQL through pgjdbc the work gets a connection that defers
 * the guard: the first {@code execute}, {@code executeQuery}, {@code executeUpdate} or {@code
 * executeLargeUpdate} of a statement from {@code prepareStatement(sql)} sends the guard and the
 * statement as one pipeline. PostgreSQL runs a pipeline's statements in order and skips the rest
 * after a failure, and the guard sent this way fails unless it raised the row, so the work's
 * statement runs only after the guard, in the same transaction, as if the guard had run first on
 * its own; the fence is exactly as strong and costs no round trip of its own. Any other first use
 * of the connection or statement (a plain {@code Statement}, a savepoint, metadata, a batch, a
 * positive fetch size, a stream parameter, SQL holding a {@code ;}) runs the guard alone first. A
 * refusal or a lock's first fenced transaction runs the guard alone too (the pipeline is rolled
 * back, nothing of the work having run), so every exception and message stays as described here.
 * The argument in full is in docs/fencing.md. On MariaDB through its own driver, Connector/J,
 * with {@code allowMultiQueries=true} (and without {@code useServerPrepStmts=true}) the guard
 * travels the same way, as one query of two statements, which MariaDB stops at the first that
 * fails. Elsewhere (H2, MariaDB without it, MySQL, other drivers) the guard is a statement of its
 * own. On MariaDB through Connector/J the commit is one statement that also puts back what the
 * guard set on the session and switches autocommit back on.
 *
 * <p>Nothing here retries: a refused transaction must not run again under the same lease, and a
 * concurrency failure that does not hide a refusal is left to the caller's retry policy.
 *
 * <p>Stateless and thread-safe; one connection must be used by one call at a time.
 */
public final class JdbcFencing {
    private JdbcFencing() {}

    /**
     * Runs {@code work} in a fenced transaction on a connection of {@code dataSource}, which is
     * closed (returned to its pool) afterwards. A connection handed out with autocommit off is
     * taken to be fresh (nothing run on it yet); its autocommit is left off afterwards.
     *
     * @return what {@code work} returned, after the commit
     * @throws FenceRefusedException if a later holder of the lock has entered ({@link
     *     Reason#NEWER_TOKEN_REGISTERED}), the lease was not valid before the guard or before the
     *     commit ({@link Reason#LEASE_NOT_VALID}), or it ran out while the transaction was open and
     *     the database ended the transaction ({@link Reason#ENDED_BY_DATABASE}); rolled back
     * @throws FenceRowBusyException if an older transaction of the lock held the fence row for the
     *     lease's whole remaining time; rolled back
     * @throws IllegalArgumentException if an argument is null; nothing was run
     * @throws SQLException what the database or {@code work} threw, after the rollback
     */
    public static <T> T inTransaction(DataSource dataSource, Lease lease, SqlWork<T> work) throws SQLException {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        requireArguments(lease, work);
        try (Connection connection = dataSource.getConnection()) {
            return run(connection, lease, work);
        }
    }

    /**
     * Runs {@code work} in a fenced transaction on {@code connection}, which stays open.
     *
     * <p>The connection must have autocommit on: with autocommit off it may already be inside a
     * transaction whose earlier statements the fence would not order, and committing would commit
     * them too.
     *
     * @return what {@code work} returned, after the commit
     * @throws FenceRefusedException if a later holder of the lock has entered, the lease was not
     *     valid before the guard or before the commit, or it ran out while the transaction was open
     *     and the database ended the transaction; rolled back
     * @throws IllegalArgumentException if an argument is null, or the connection is closed or has
     *     autocommit off; nothing was run
     * @throws SQLException what the database or {@code work} threw, after the rollback
     */
    public static <T> T inTransaction(Connection connection, Lease lease, SqlWork<T> work) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        requireArguments(lease, work);
        if (connection.isClosed()) {
            throw new IllegalArgumentException("connection must be open, got a closed one: " + connection);
        }
        if (!connection.getAutoCommit()) {
            throw new IllegalArgumentException("connection must have autocommit on: with autocommit off it may be "
                    + "inside a transaction the fence would not order; end that transaction first");
        }
        return run(connection, lease, work);
    }

    /**
     * Runs {@code work} in a transaction fenced by a token this process holds no lease for: the
     * token a request or message presented (a receiver; see {@link
     * dev.fencedlock.FencingTokenCheck} for what to check first). The steps are {@link
     * #inTransaction(DataSource, Lease, SqlWork)}'s, on the same fence row, with {@code
     * presentedToken} in place of a lease's token: a token older than the one the row holds is
     * refused, a newer one raises the row so that every older token is refused from then on, and two
     * transactions presenting the same token run one after the other like two transactions of one
     * lease. There is no lease to check before the guard or the commit; the wait for the row and
     * (PostgreSQL, MariaDB) the time the transaction may sit idle are bounded by {@code bound}.
     *
     * @return what {@code work} returned, after the commit
     * @throws FenceRefusedException if the fence row holds a newer token ({@link
     *     Reason#NEWER_TOKEN_REGISTERED}); rolled back
     * @throws FenceRowBusyException if an older transaction of the lock held the fence row for the
     *     whole {@code bound}; rolled back
     * @throws IllegalArgumentException if an argument is null, {@code lockName} breaks the lock-name
     *     rules, {@code presentedToken} is negative or {@code bound} is zero or negative; nothing was
     *     run
     * @throws SQLException what the database or {@code work} threw, after the rollback
     */
    public static <T> T inTransaction(
            DataSource dataSource, String lockName, long presentedToken, Duration bound, SqlWork<T> work)
            throws SQLException {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        LockNames.requireValid(lockName);
        if (presentedToken < 0) {
            throw new IllegalArgumentException("presentedToken must not be negative, got " + presentedToken);
        }
        if (bound == null || bound.isZero() || bound.isNegative()) {
            throw new IllegalArgumentException("bound must be positive, got " + bound);
        }
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        try (Connection connection = dataSource.getConnection()) {
            return run(
                    connection,
                    FencedTransaction.of(FenceTable.standard(), connection, lockName, presentedToken, bound),
                    work);
        }
    }

    private static void requireArguments(Lease lease, SqlWork<?> work) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
    }

    /**
     * The steps of {@link FencedTransaction} in their order: begin (the lease check, the guard,
     * deferred to the work's first statement where it can travel with it), the work, before the
     * commit (the deferred guard alone if no statement carried it, the lease check), commit; after
     * a failure the rollback and what the failure stands for; always the session put back.
     */
    private static <T> T run(Connection connection, Lease lease, SqlWork<T> work) throws SQLException {
        return run(connection, FencedTransaction.of(FenceTable.standard(), connection, lease), work);
    }

    private static <T> T run(Connection connection, FencedTransaction transaction, SqlWork<T> work)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        Throwable failure = null;
        boolean committing = false;
        try {
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            T result = work.run(transaction.beginDeferred());
            transaction.enterNow();
            if (connection.getAutoCommit()) {
                throw new IllegalStateException(
                        "the work switched autocommit on, which ended the fenced " + "transaction of lock '"
                                + transaction.lockName() + "' early; it must leave the transaction open");
            }
            transaction.beforeCommit();
            committing = true;
            // on MariaDB the session is put back, and autocommit switched on, in the commit's round trip
            transaction.commit(autoCommit);
            return result;
        } catch (Throwable t) {
            failure = t;
            rollback(connection, t);
            if (t instanceof SQLException e) {
                Optional<? extends LockException> explained =
                        committing ? Optional.empty() : transaction.endedByDatabase(e);
                if (explained.isEmpty()) {
                    explained = transaction.explain(e);
                }
                if (explained.isPresent()) {
                    failure = explained.get();
                    throw explained.get();
                }
            }
            throw t;
        } finally {
            restore(connection, transaction, autoCommit, failure);
        }
    }

    /**
     * Whether {@code failure} says the database ended a fenced transaction because it sat idle for
     * longer than its guard allowed (the lease's remaining time at the guard plus a grace of {@code
     * 1 s}): PostgreSQL's {@code idle_in_transaction_session_timeout}, SQLState {@code 25P03}, in
     * {@code failure} or its causes. Such a transaction was rolled back by the server and its
     * session closed: nothing it wrote landed, which makes it a refused stale write, not an outcome
     * in doubt. fencing-jpa surfaces it as the database's failure; {@code inTransaction} as {@link
     * FenceRefusedException} ({@link Reason#ENDED_BY_DATABASE}). False for null and for every other
     * failure.
     */
    public static boolean endedForIdling(Throwable failure) {
        return FencedTransaction.endedForIdling(failure);
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restore(
            Connection connection, FencedTransaction transaction, boolean autoCommit, Throwable failure)
            throws SQLException {
        try {
            transaction.afterCompletion();
            if (connection.getAutoCommit() != autoCommit) {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException | RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }
}
