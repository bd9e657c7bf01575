package dev.fencedlock.jdbc.internal;

import dev.fencedlock.jdbc.FenceTable;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The guard of one fenced transaction, sent in the same round trip as the work's first statement
 * where the database can gate that statement on it ({@link GuardStatements#canPipeline}:
 * PostgreSQL through pgjdbc, MariaDB through Connector/J with {@code allowMultiQueries=true}), and
 * run alone, as a round trip of its own, before anything else reaches the database.
 *
 * <p>Why the work's first statement never runs unless the guard raised the row: the two travel as
 * one pipeline (PostgreSQL) or one query of two statements (MariaDB), guard first; the database
 * executes them in order, each after the one before it has finished, and after a failure skips
 * everything up to the pipeline's or the query's end. The pipelined guard fails unless it raised
 * the row (a larger token, no row yet, a wait for the row that timed out, a serialization
 * failure). So when the work's statement runs, the guard has already raised and locked the row,
 * set the bounds and the mark, in the same transaction, and the statement takes its snapshot after
 * that (READ COMMITTED, and InnoDB's REPEATABLE READ, whose snapshot the first consistent read
 * takes), or the transaction's snapshot was taken by the guard (PostgreSQL's REPEATABLE READ,
 * SERIALIZABLE), exactly as when the guard runs alone. Nothing else of the transaction reaches the
 * database before it: {@link DeferredGuardConnection} sends the guard alone ahead of any other
 * call. With autocommit off, pgjdbc puts its {@code BEGIN} in front of the same pipeline; a
 * savepoint is a call of its own and so comes after the guard; server-side prepared statements
 * ({@code prepareThreshold}, {@code useServerPrepStmts}) change how each statement is parsed, not
 * the order or the skipping. On PostgreSQL a pooled connection carries nothing of the guard beyond
 * the transaction (its bounds and mark are transaction-local); on MariaDB they are put back when
 * the transaction ends, as when the guard runs alone ({@link FencedTransaction#afterCompletion}).
 *
 * <p>When the pipelined guard did not raise the row (a refusal or the lock's first use) the
 * transaction, in which nothing else has run, is rolled back and the guard runs alone, so that
 * the refusal, the insert of the first row and their messages are those of {@link
 * FenceGuard#enter}; the work's statement then runs on its own. A failure of the pipeline for any
 * other reason is thrown as the driver reported it, as it would be by the guard alone.
 *
 * <p>A failure of the guard run alone, and a failure of the pipeline that is not the guard's
 * refusal, goes through {@link Failures} before it is thrown: {@code
 * JdbcFencing} throws it as it is, fencing-jpa throws its own exceptions in its place. Once the
 * guard run alone has failed, or a failure was replaced, the transaction is refused for good: every later use that
 * would need the guard throws the same exception again at once, without running anything.
 *
 * <p>Not thread-safe: one per transaction, used by the thread that runs it.
 */
final class DeferredGuard {
    private final FenceGuard guard;
    private final GuardStatements statements;
    private final Connection connection;
    private final FencedTransaction transaction;
    private final Failures failures;
    private boolean entered;
    /** What a failure of the guard was thrown as; from then on the transaction is refused. */
    private Exception refusal;

    private DeferredGuard(
            FenceGuard guard,
            GuardStatements statements,
            Connection connection,
            FencedTransaction transaction,
            Failures failures) {
        this.guard = guard;
        this.statements = statements;
        this.connection = connection;
        this.transaction = transaction;
        this.failures = failures;
    }

    /**
     * Whether a guard can travel with the first statement on a connection {@code meta} describes
     * ({@link GuardStatements#canPipeline}). No statement is run.
     */
    static boolean canPipeline(DatabaseMetaData meta) throws SQLException {
        return FenceGuard.of(FenceTable.standard()).statementsFor(meta).canPipeline(meta);
    }

    /**
     * Whether the commit can give the session back in its own round trip on a connection {@code
     * meta} describes ({@link GuardStatements#canCommitRestoring}). No statement is run.
     */
    static boolean canCommitRestoring(DatabaseMetaData meta) throws SQLException {
        return FenceGuard.of(FenceTable.standard()).statementsFor(meta).canCommitRestoring(meta);
    }

    /**
     * The guard of the transaction just begun on {@code connection} (autocommit off, nothing run),
     * after {@link FenceGuard#enter}'s checks, or null if it cannot travel with the work's first
     * statement there.
     *
     * @param failures what the guard's failures are thrown as
     */
    static DeferredGuard of(FenceGuard guard, Connection connection, FencedTransaction transaction, Failures failures)
            throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        if (!guard.statementsFor(meta).canPipeline(meta)) {
            return null;
        }
        return new DeferredGuard(guard, guard.checked(connection), connection, transaction, failures);
    }

    /** Whether the guard has raised the row in this transaction. */
    boolean entered() {
        return entered;
    }

    String lockName() {
        return transaction.lockName();
    }

    /**
     * Runs the guard alone unless it has entered: {@link FenceGuard#enter}.
     *
     * @throws SQLException what the guard failed with, or what {@link Failures}
     *     put in its place
     */
    void enterAlone() throws SQLException {
        if (entered) {
            return;
        }
        requireNotRefused();
        try {
            guard.enter(connection, transaction.lockName(), transaction.token(), transaction.bound());
        } catch (SQLException | RuntimeException e) {
            RuntimeException replacement = failures.replace(e, false);
            refusal = replacement != null ? replacement : e;
            throw rethrown();
        }
        entered = true;
    }

    private void requireNotRefused() throws SQLException {
        if (refusal != null) {
            throw rethrown();
        }
    }

    /** {@link #refusal}, to be thrown. */
    private SQLException rethrown() {
        if (refusal instanceof RuntimeException unchecked) {
            throw unchecked;
        }
        return (SQLException) refusal;
    }

    /**
     * Executes {@code sql} behind the guard, in one round trip.
     *
     * @param parameters sets the work's parameters and settings on the statement, its parameter
     *     indexes shifted by the offset it is given
     * @return the statement, positioned at the first result of {@code sql}; or null if the guard did
     *     not raise the row and has now run alone: {@code sql} has not run, and the caller runs it on
     *     its own
     * @throws SQLException what the pipeline failed with, the guard's failures included, or what
     *     {@link Failures} put in its place
     */
    Executed executeBehindGuard(String sql, StatementParameters parameters) throws SQLException {
        requireNotRefused();
        Duration bound = transaction.bound();
        PreparedStatement pipeline = connection.prepareStatement(statements.pipelinedEnterSql(bound) + ";\n" + sql);
        try {
            int offset = statements.bindPipelined(pipeline, transaction.lockName(), transaction.token(), bound);
            parameters.applyTo(pipeline, offset);
            boolean resultSet = pipeline.execute();
            if (!statements.confirmsPipelined(pipeline, resultSet)) {
                throw new IllegalStateException("the fence guard of lock '" + transaction.lockName()
                        + "' sent with the work's first statement returned no confirmation; the driver did not"
                        + " return the pipeline's results in order");
            }
            entered = true;
            return new Executed(pipeline, pipeline.getMoreResults());
        } catch (SQLException | RuntimeException e) {
            closeQuietly(pipeline, e);
            if (!(e instanceof SQLException failure) || !statements.isNotRaised(failure)) {
                RuntimeException replacement = failures.replace(e, true);
                if (replacement != null) {
                    refusal = replacement;
                    throw replacement;
                }
                throw e;
            }
        }
        connection.rollback();
        enterAlone();
        return null;
    }

    private static void closeQuietly(PreparedStatement statement, Throwable failure) {
        try {
            statement.close();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * A statement that ran behind the guard, moved past the guard's result ({@link
     * PreparedStatement#getMoreResults()} called once): {@code resultSet} is what that call
     * returned, whether the work's first result is a result set.
     */
    record Executed(PreparedStatement statement, boolean resultSet) {}

    /** The work's parameters and statement settings, put on whichever statement finally runs its SQL. */
    @FunctionalInterface
    interface StatementParameters {
        /** Sets them on {@code statement}, parameter {@code i} at {@code i + offset}. */
        void applyTo(PreparedStatement statement, int offset) throws SQLException;
    }

    /** What a failure of the guard is thrown as. */
    @FunctionalInterface
    interface Failures {
        /**
         * Called with a failure before it is thrown, on the transaction's connection, which the
         * failure has left unusable until it is rolled back.
         *
         * @param failure what the guard run alone failed with ({@code pipelined} false), or what the
         *     pipeline of the guard and the work's first statement failed with ({@code pipelined}
         *     true), other than the guard's refusal (which has the guard run alone): either
         *     statement's failure, they are not told apart
         * @return the exception to throw in its place, or null to throw {@code failure} itself
         */
        RuntimeException replace(Exception failure, boolean pipelined);
    }
}
