package dev.fencedlock.jdbc;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.internal.DeferredGuard;
import dev.fencedlock.jdbc.internal.DeferredGuardConnection;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs a JDBC transaction under a lease, fenced by the lock's row in {@value
 * FenceGuard#DEFAULT_TABLE}:
 *
 * <ol>
 *   <li>autocommit off;
 *   <li>{@link FenceGuard#enter(Connection, Lease)} as the transaction's first statement (on
 *       PostgreSQL through its own driver, pgjdbc, sent in the same round trip as the work's first
 *       prepared statement, which the database then runs only if the guard succeeded: see "One
 *       round trip" below): a lease
 *       whose token is lower than one already registered for the lock is refused here, and from
 *       here on the transactions of the lock run one at a time. The wait for an older transaction
 *       of the lock is bounded by the lease's remaining time ({@link FenceRowBusyException} when it
 *       runs out), and so (PostgreSQL; MariaDB with {@link FenceGuard#limitIdle}) is how long this
 *       transaction may sit idle: a holder
 *       that stalls inside it has its transaction ended by the server (see {@link FenceGuard},
 *       bounded waits);
 *   <li>the work;
 *   <li>{@link Lease#isValid()} checked right before the commit: a lease that is no longer valid
 *       rolls back with {@link FenceRefusedException} ({@link Reason#LEASE_NOT_VALID});
 *   <li>commit.
 * </ol>
 *
 * <p>Any failure rolls the transaction back and propagates unchanged, with a failure of the
 * rollback added to it as suppressed,
 * except one: a holder that stalled inside the transaction past its lease, whose transaction the
 * server ended (PostgreSQL SQLState {@code 25P03}, {@link FenceGuard#endedForIdling}; MariaDB a
 * closed connection, SQLState class {@code 08}), fails at its next statement with {@link
 * FenceRefusedException} ({@link Reason#ENDED_BY_DATABASE}), the database's failure as its cause;
 * nothing it wrote was kept.
 * A failure of the commit itself is never translated: its outcome may be in doubt. A concurrency failure (serialization failure, deadlock, lock
 * timeout) that hides a refusal (the committed row now holds a newer token) is reported as the
 * {@link FenceRefusedException} it hides, with the failure as its cause. Autocommit is set back to
 * what it was, whatever happened, and so is what the guard set on the session ({@link
 * FenceGuard#afterCompletion}: MariaDB's idle timeout). Nothing else of the connection is changed: the transaction runs at
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
 * The argument in full is in docs/fencing.md. Elsewhere (H2, MariaDB/MySQL, other drivers) the
 * guard is a statement of its own.
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
     * them too. A caller that owns the transaction calls {@link FenceGuard#enter} as its first
     * statement instead.
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
                    + "inside a transaction the fence would not order; own the transaction and call "
                    + "FenceGuard.enter as its first statement instead");
        }
        return run(connection, lease, work);
    }

    private static void requireArguments(Lease lease, SqlWork<?> work) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
    }

    private static <T> T run(Connection connection, Lease lease, SqlWork<T> work) throws SQLException {
        requireValid(lease, "when the transaction began; nothing was run");
        FenceGuard guard = FenceGuard.standard();
        boolean autoCommit = connection.getAutoCommit();
        Throwable failure = null;
        boolean committing = false;
        try {
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            T result = runGuarded(guard, connection, lease, work);
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("the work switched autocommit on, which ended the fenced "
                        + "transaction of lock '" + lease.lockName() + "' early; it must leave the transaction open");
            }
            requireValid(lease, "at commit; the transaction was rolled back");
            committing = true;
            connection.commit();
            return result;
        } catch (Throwable t) {
            failure = t;
            rollback(connection, t);
            if (t instanceof SQLException e) {
                if (!committing && !lease.isValid() && endedByTheServer(e)) {
                    FenceRefusedException lost = new FenceRefusedException(
                            Reason.ENDED_BY_DATABASE,
                            lease.lockName(),
                            lease.token(),
                            null,
                            "nothing of it was committed (SQLState " + e.getSQLState() + ": " + e.getMessage() + ")",
                            e);
                    failure = lost;
                    throw lost;
                }
                FenceRefusedException refusal = guard.explain(connection, e, lease.lockName(), lease.token())
                        .orElse(null);
                if (refusal != null) {
                    failure = refusal;
                    throw refusal;
                }
                FenceRowBusyException busy = guard.explainWait(connection, e, lease.lockName(), lease.token(), null)
                        .orElse(null);
                if (busy != null) {
                    failure = busy;
                    throw busy;
                }
            }
            throw t;
        } finally {
            restore(connection, guard, autoCommit, failure);
        }
    }

    /**
     * The guard, then the work. Where the guard can travel with the work's first statement ({@link
     * DeferredGuard}: PostgreSQL through pgjdbc) the work gets the connection with the guard
     * deferred to that statement, and a work that ran no statement has the guard run alone after it,
     * so that its token is registered, or refused, as always.
     */
    private static <T> T runGuarded(FenceGuard guard, Connection connection, Lease lease, SqlWork<T> work)
            throws SQLException {
        DeferredGuard deferred = DeferredGuard.of(guard, connection, lease, DeferredGuard.AS_THEY_ARE);
        if (deferred == null) {
            guard.enter(connection, lease);
            guard.limitIdle(connection, lease);
            return work.run(connection);
        }
        T result = work.run(DeferredGuardConnection.wrap(connection, deferred));
        deferred.enterAlone();
        return result;
    }

    /**
     * The server ended the transaction: PostgreSQL's idle timeout ({@link FenceGuard#endedForIdling}),
     * or the connection is gone (SQLState class {@code 08}; MariaDB closes the connection of a
     * transaction idle past {@link FenceGuard#limitIdle}'s bound without saying why).
     */
    private static boolean endedByTheServer(SQLException failure) {
        String state = failure.getSQLState();
        return FenceGuard.endedForIdling(failure) || (state != null && state.startsWith("08"));
    }

    private static void requireValid(Lease lease, String when) {
        if (!lease.isValid()) {
            throw new FenceRefusedException(Reason.LEASE_NOT_VALID, lease.lockName(), lease.token(), null, when, null);
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restore(Connection connection, FenceGuard guard, boolean autoCommit, Throwable failure)
            throws SQLException {
        try {
            guard.afterCompletion(connection);
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
