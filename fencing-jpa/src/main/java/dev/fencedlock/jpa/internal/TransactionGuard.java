package dev.fencedlock.jpa.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.jpa.StaleFencingTokenException;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.hibernate.ConnectionReleaseMode;
import org.hibernate.engine.jdbc.spi.JdbcCoordinator;
import org.hibernate.resource.transaction.spi.TransactionCoordinator;
import org.hibernate.resource.transaction.spi.TransactionObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences every transaction of one Hibernate session begun while a lease is bound: a thin adapter
 * that runs fencing-jdbc's {@link FencedTransaction} steps at Hibernate's transaction callbacks and
 * states their refusals as JPA exceptions. One per session's transaction coordinator, registered by
 * {@link GuardingTransactionCoordinatorBuilder}.
 *
 * <ol>
 *   <li>After begin (before Hibernate runs any statement of the transaction): if a lease is bound
 *       to the thread, the lease must be valid, then the guard ({@link FencedTransaction#begin}) on
 *       the session's connection, which also bounds how long the transaction may sit idle. From then
 *       on the transaction holds the lock's fence row, so the lock's transactions run one at a time
 *       in token order and every read of this one comes after the row lock. Without a lease bound
 *       the transaction is recorded as unfenced: writes to fenced tables in it are refused.
 *       <ul>
 *         <li>On PostgreSQL through pgjdbc and on MariaDB through Connector/J with {@code
 *             allowMultiQueries=true}, with a resource-local transaction on a connection of
 *             the {@link GuardingConnectionProvider}, the guard is not run here: it is deferred
 *             ({@link FencedTransaction#beginArmed}, on the connection the provider made {@link
 *             FencedTransaction#guardable}) and travels in one
 *             round trip with the transaction's first statement (a query, a sequence's {@code
 *             nextval}, a flush's first write unless JDBC batching sends it), which the server runs
 *             only if the guard raised the row; any other first use of the connection (a batch, a
 *             savepoint, metadata, a plain {@code Statement}) runs the guard alone first. So a refusal is
 *             thrown from that first statement (from the {@code find}, query, {@code persist} or
 *             flush that ran it; from {@code commit()} when the commit's flush ran it, wrapped by
 *             JPA in a {@code RollbackException}), not from {@code begin()}: the connection is
 *             rolled back at once (releasing the row), the transaction marked for rollback, and
 *             every later use of the connection in it throws the refusal again, without running
 *             anything, until it is rolled back. A transaction that ran no statement runs the
 *             guard alone before its commit, so its token is registered, or refused, as always.
 *         <li>Elsewhere (H2, MariaDB without {@code allowMultiQueries}, MySQL, JTA, a connection
 *             provider of the application's own
 *             registered as a service) the guard runs here, as a statement of its own; a refusal
 *             rolls the transaction back at once and is thrown from {@code begin()}.
 *       </ul>
 *       Either way a refusal is a {@link StaleFencingTokenException}, a fence row busy for the
 *       lease's remaining time a {@link LockTimeoutException} with fencing-jdbc's {@link
 *       dev.fencedlock.jdbc.FenceRowBusyException} as its cause, and a missing fence table a {@link
 *       PersistenceException} that says how to create it.
 *   <li>Before completion (after the commit's flush, before the JDBC commit): the deferred guard
 *       alone if no statement carried it; then the lease must still be valid, else {@link
 *       StaleFencingTokenException} and Hibernate rolls back.
 *   <li>After the transaction ended, before its connection goes back to the pool: {@link
 *       FencedTransaction#afterCompletion} on the connection the guard ran on (MariaDB/MySQL: clears the
 *       guard's mark, a session variable the protected tables' triggers read, and puts back the
 *       session's {@code idle_transaction_timeout}; nothing on PostgreSQL and H2). On MariaDB
 *       through Connector/J, with a resource-local transaction on a connection of the {@link
 *       GuardingConnectionProvider}, the JDBC commit has done this already, in its own round trip
 *       ({@link FencedTransaction#commit}). Hibernate gives a
 *       resource-local transaction's connection back inside the JDBC commit or rollback, before
 *       any completion callback, so this runs when the session starts to release the connection
 *       ({@link SessionStatements}); a session that holds its connection across transactions gets
 *       it at the completion callback, a rollback that failed (no callback) at the release or the
 *       session's next begin. A failure of this step is logged and never replaces the
 *       transaction's outcome. Not covered: JTA with connections released after each statement.
 *   <li>After completion: the transaction is forgotten, and a deferred guard disarmed (on a
 *       connection already given back, without touching it: {@link FencedTransaction#abandon}).
 * </ol>
 *
 * <p>It also follows the session's statements ({@link SessionStatements}):
 *
 * <ul>
 *   <li>a statement that writes a fenced table ({@link FencedWriteInspector}) must run in this
 *       session's transaction, begun under the lease bound now; another session's fenced
 *       transaction open on the same thread does not count;
 *   <li>statements run on a held connection outside a transaction with autocommit off (a read
 *       before {@code begin()} on a pool with {@code autoCommit=false}, the connection held by the
 *       session) leave a database transaction open, whose snapshot the fenced transaction would
 *       join: it is committed before the guard runs, so the guard is the fenced transaction's first
 *       statement. Statements the application runs on the connection itself ({@code doWork},
 *       {@code unwrap(Connection)}) are not seen.
 * </ul>
 *
 * <p>Used by the session's thread only, as the session itself.
 */
final class TransactionGuard implements TransactionObserver {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionGuard.class);

    private final TransactionCoordinator coordinator;
    private final JdbcCoordinator jdbc;
    private final FenceTable table;
    private OpenTransactions.Entry current;
    /**
     * Whether statements ran on the held connection outside a transaction with autocommit off
     * since it last ended one: the database then has a transaction (and, under REPEATABLE READ, a
     * snapshot) open that the next begin would otherwise join.
     */
    private boolean openBeforeBegin;
    /** The session's connection the last fenced transaction ran on, until it was put back; else null. */
    private Connection marked;
    /** The fenced transaction on {@link #marked}. */
    private FencedTransaction markedBy;

    TransactionGuard(TransactionCoordinator coordinator, JdbcCoordinator jdbc, FenceTable table) {
        this.coordinator = coordinator;
        this.jdbc = jdbc;
        this.table = table;
    }

    @Override
    public void afterBegin() {
        // a rollback that failed ran no completion callback: what its guard left is still on the connection
        clearMarkIfHeld();
        Lease lease = LeaseBinding.current().orElse(null);
        current = OpenTransactions.begin(lease);
        if (lease == null) {
            return;
        }
        RuntimeException refusal;
        try {
            endTransactionOpenBeforeBegin(lease);
            begin(lease);
            return;
        } catch (RuntimeException e) {
            refusal = e;
        }
        try {
            coordinator.getTransactionDriverControl().rollback();
        } catch (RuntimeException rollbackFailure) {
            refusal.addSuppressed(rollbackFailure);
        } finally {
            // normally done by afterCompletion; also when the rollback failed before reaching it
            afterCompletion(false, false);
        }
        throw refusal;
    }

    /**
     * Commits what the held connection ran outside a transaction since it last ended one, so that
     * the guard starts the database transaction and every read after it sees the fence row's
     * order. A commit, not a rollback: reads lose nothing, and a write made there (only with
     * {@code hibernate.allow_update_outside_transaction}) was never part of the fenced transaction,
     * as it would not have been with autocommit on.
     */
    private void endTransactionOpenBeforeBegin(Lease lease) {
        if (!openBeforeBegin) {
            return;
        }
        openBeforeBegin = false;
        Connection connection = jdbc.getLogicalConnection().getPhysicalConnection();
        try {
            connection.commit();
        } catch (SQLException e) {
            throw new PersistenceException(
                    "Could not end the transaction that statements run before begin() left open on the "
                            + "connection (autocommit off), before the fence guard of lock '" + lease.lockName()
                            + "' (token " + lease.token() + "); the transaction was rolled back: " + e.getMessage(),
                    e);
        }
    }

    /**
     * The fenced transaction's begin on the session's connection: the guard now, as its first
     * statement, or (a resource-local transaction on a connection of the {@link
     * GuardingConnectionProvider}, where the database can gate a statement on the guard) armed to
     * travel with the transaction's first statement.
     */
    private void begin(Lease lease) {
        Connection connection = jdbc.getLogicalConnection().getPhysicalConnection();
        FencedTransaction fenced = FencedTransaction.of(table, connection, lease);
        // before the guard: a guard that fails after its first statement may have set the mark
        marked = connection;
        markedBy = fenced;
        try {
            if (coordinator.getTransactionCoordinatorBuilder().isJta()) {
                fenced.begin();
            } else {
                fenced.beginArmed((failure, pipelined) -> refused(fenced, failure, pipelined, lease));
            }
            current.guarded(fenced);
        } catch (FenceRefusedException e) {
            throw StaleFencingTokenException.of(e);
        } catch (SQLException e) {
            throw explained(fenced, e, lease);
        }
    }

    /**
     * What a failure of the deferred guard is thrown as, once the connection is rolled back and
     * the transaction marked for rollback: the exceptions of the guard run at begin. Null for a
     * failure of the pipeline of the guard and the first statement that neither hides a refusal nor
     * is a lock timeout: it may be the statement's own, and is left to Hibernate as any statement's
     * failure. A lock timeout of that pipeline is taken for the guard's wait for the row (the guard
     * bounded the transaction's lock waits by the lease's remaining time; Hibernate would report the
     * statement's own as a {@link LockTimeoutException} too).
     */
    private RuntimeException refused(FencedTransaction fenced, Exception failure, boolean pipelined, Lease lease) {
        Connection connection = fenced.connection();
        RuntimeException refusal;
        if (failure instanceof FenceRefusedException stale) {
            rollbackQuietly(connection, stale);
            refusal = StaleFencingTokenException.of(stale);
        } else if (failure instanceof SQLException sql) {
            if (pipelined && !FencedTransaction.isConcurrencyFailure(sql)) {
                return null;
            }
            refusal = explained(fenced, sql, lease, !pipelined);
            if (refusal == null) {
                return null;
            }
        } else if (pipelined) {
            return null;
        } else {
            rollbackQuietly(connection, failure);
            refusal = (RuntimeException) failure;
        }
        coordinator.getTransactionDriverControl().markRollbackOnly();
        return refusal;
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }

    /** Before the session prepares a statement: a write to a fenced table must run in this session's fenced transaction. */
    void beforePrepare() {
        String fencedWrite = OpenTransactions.takePreparedWrite();
        if (fencedWrite != null) {
            OpenTransactions.requireFenced(fencedWrite, current);
        }
    }

    /** Before the session executes statements: outside a transaction with autocommit off, they leave one open. */
    void beforeExecute() {
        if (current != null || openBeforeBegin || !jdbc.getLogicalConnection().isPhysicallyConnected()) {
            return;
        }
        try {
            openBeforeBegin =
                    !jdbc.getLogicalConnection().getPhysicalConnection().getAutoCommit();
        } catch (SQLException e) {
            // cannot tell: assume the worst, the next fenced begin commits first
            openBeforeBegin = true;
        }
    }

    /**
     * Before the session gives its connection back to the pool: the session state the guard set
     * must not go with it. Hibernate releases a resource-local transaction's connection within the
     * JDBC commit or rollback, before the completion callbacks; only a release after each statement
     * (JTA) comes while the transaction still runs, and keeps the mark.
     */
    void beforeRelease() {
        if (marked == null) {
            return;
        }
        if (current != null
                && jdbc.getLogicalConnection().getConnectionHandlingMode().getReleaseMode()
                        == ConnectionReleaseMode.AFTER_STATEMENT) {
            return;
        }
        clearMark();
    }

    /** After the session gave its connection back: the pool ends what was open on it. */
    void afterRelease() {
        openBeforeBegin = false;
    }

    /** A failure of the guard: rolled back; a concurrency failure that hides a refusal becomes the refusal. */
    private RuntimeException explained(FencedTransaction fenced, SQLException failure, Lease lease) {
        return explained(fenced, failure, lease, true);
    }

    /**
     * Rolls back after {@code failure}; the refusal it hides, the busy fence row it was, or (if
     * {@code guards}: the failure was the guard's) a failure of the guard, else null.
     */
    private RuntimeException explained(FencedTransaction fenced, SQLException failure, Lease lease, boolean guards) {
        try {
            fenced.connection().rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
            return guards ? guardFailed(failure, lease) : null;
        }
        Optional<LockException> explained = fenced.explain(failure);
        if (explained.isPresent()) {
            return explained.get() instanceof FenceRefusedException refusal
                    ? StaleFencingTokenException.of(refusal)
                    : new LockTimeoutException(explained.get().getMessage(), explained.get());
        }
        return guards ? guardFailed(failure, lease) : null;
    }

    private static PersistenceException guardFailed(SQLException failure, Lease lease) {
        return new PersistenceException(
                "The fence guard of lock '" + lease.lockName() + "' (token " + lease.token() + ") failed (SQLState "
                        + failure.getSQLState() + "); the transaction was rolled back: " + failure.getMessage(),
                failure);
    }

    @Override
    public void beforeCompletion() {
        FencedTransaction fenced = current == null ? null : current.fenced();
        if (fenced == null) {
            return;
        }
        try {
            fenced.beforeCommit();
        } catch (FenceRefusedException e) {
            throw StaleFencingTokenException.of(e);
        } catch (SQLException e) {
            throw guardFailed(e, current.lease());
        }
    }

    @Override
    public void afterCompletion(boolean successful, boolean delayed) {
        clearMarkIfHeld();
        openBeforeBegin = false;
        if (current != null) {
            current.end();
            current = null;
        }
    }

    /**
     * Puts back the session state the guard set, on the connection it ran on, if the session still
     * holds that connection (it holds connections across transactions, or a rollback failed); a
     * connection already given back is not touched, since another session may have it now.
     */
    private void clearMarkIfHeld() {
        if (marked == null) {
            return;
        }
        if (jdbc.getLogicalConnection().isPhysicallyConnected()
                && jdbc.getLogicalConnection().getPhysicalConnection() == marked) {
            clearMark();
        } else {
            markedBy.abandon();
            marked = null;
            markedBy = null;
        }
    }

    /** {@link FencedTransaction#afterCompletion} on {@link #marked}; a failure is logged, never thrown. */
    private void clearMark() {
        FencedTransaction fenced = markedBy;
        marked = null;
        markedBy = null;
        try {
            fenced.afterCompletion();
        } catch (SQLException | RuntimeException e) {
            LOG.warn(
                    "Could not clear the session state the fence guard of lock '{}' (token {}) set on its connection"
                            + " after the transaction (MariaDB/MySQL: the mark @fencedlock_fenced and"
                            + " idle_transaction_timeout); the connection goes back to the pool with it, and until a"
                            + " newer holder enters, its later transactions can write protected tables unfenced",
                    fenced.lockName(),
                    fenced.token(),
                    e);
        }
    }
}
