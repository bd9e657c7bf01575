package dev.fencedlock.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The fence on PostgreSQL: the guard's statements, the mark, the bounds and the protected tables.
 *
 * <ul>
 *   <li>The guard's first statement sets {@code lock_timeout} and {@code
 *       idle_in_transaction_session_timeout} (the bound plus {@link #IDLE_GRACE})
 *       transaction-locally in its filter, which runs before the row is locked, and marks the
 *       transaction in its {@code RETURNING}, so only when it raised the row: the transaction-local
 *       setting {@value #MARK} becomes {@code "<transaction id> <token> <lock name>"}, the id being
 *       {@code txid_current()}.
 *   <li>The guard's update writes the row even when it already holds the token: a new row version
 *       per fenced transaction, on purpose. A row lock without a new version ({@code select ... for
 *       no key update}) would still refuse lower tokens and make a second transaction of the same
 *       lease wait, but PostgreSQL fails a REPEATABLE READ or SERIALIZABLE transaction ({@code
 *       40001}) only for a row changed after its snapshot, not for one merely locked; that
 *       snapshot is taken when the guard starts, before it waits. So the second transaction would
 *       get the row after the first committed and read from a snapshot without the first's
 *       writes: both could commit writes derived from one read (guarantee 2 of docs/fencing.md),
 *       even if only the first transaction, at READ COMMITTED, had skipped the write ({@code
 *       FenceGuardIT.aRepeatableReadTransactionOfTheSameLeaseNeverCommitsFromASnapshotBeforeTheFirst}).
 *   <li>The trigger of a protected table (migration {@value #MIGRATION}) accepts a write statement
 *       only if the mark, or the operator's bypass {@code fencedlock.unfenced}, starts with the
 *       current transaction's id: a mark set for the session, on the URL or for a role names no
 *       transaction and is worth nothing, and a savepoint's rollback undoes a mark set inside it.
 *   <li>{@link #protect} runs {@code CALL fencedlock_protect(table)} (installing the migration's
 *       functions first when missing or older), which covers the table's partitions and
 *       inheritance children and repairs disabled triggers; {@link #isProtected} checks all of it.
 * </ul>
 */
final class PostgresFence extends GuardStatements {
    /** The setting the guard sets transaction-locally; the triggers compare its id with the transaction's. */
    static final String MARK = "fencedlock.fenced";

    /** The newest migration: it replaces the older ones' function and procedure. */
    static final String MIGRATION = "/db/fencedlock/postgresql/V3__fencedlock_fence_edges.sql";

    /**
     * The members of a table's family that leave it unprotected: the table, its ancestors (writes
     * through them reach it) and its descendants (partitions and inheritance children, read through
     * it), each lacking an enabled statement trigger of the fence's shape and function, and each
     * partitioned member lacking the row trigger that PostgreSQL copies to partitions added later.
     * A table that does not exist is one row (null); the migration's function missing or older than
     * the transaction-bound mark leaves every member unprotected.
     */
    private static final String UNPROTECTED_MEMBERS = "with recursive"
            + " target(relid) as (select to_regclass(?)::oid),"
            + " down(relid) as (select relid from target union"
            + " select i.inhrelid from pg_inherits i join down d on i.inhparent = d.relid),"
            + " up(relid) as (select relid from target union"
            + " select i.inhparent from pg_inherits i join up u on i.inhrelid = u.relid),"
            + " family(relid) as (select relid from down union select relid from up)"
            + " select f.relid::regclass::text from family f left join pg_class c on c.oid = f.relid"
            + " where f.relid is null or (c.relkind in ('r', 'p') and ("
            + " to_regprocedure('fencedlock_unfenced(text)') is null"
            + " or not exists (select 1 from pg_trigger t where t.tgrelid = f.relid"
            + " and t.tgname = 'fencedlock_fence_required' and t.tgtype = 62 and t.tgenabled in ('O', 'A')"
            + " and t.tgfoid = to_regproc('fencedlock_refuse_unfenced'))"
            + " or (c.relkind = 'p' and not exists (select 1 from pg_trigger t where t.tgrelid = f.relid"
            + " and t.tgname = 'fencedlock_fence_required_rows' and t.tgtype = 31 and t.tgenabled in ('O', 'A')"
            + " and t.tgfoid = to_regproc('fencedlock_refuse_unfenced')))))";

    /** What {@link #pipelinedEnterSql} fails with when it did not raise the row: a value {@code lock_timeout} rejects. */
    static final String NOT_RAISED = "fencedlock: the fence row was not raised";

    /** PostgreSQL's own driver, the one whose pipelines {@link #canPipeline} vouches for. */
    static final String PGJDBC = "PostgreSQL JDBC Driver";

    private final String updateSql;
    private final String pipelinedSql;

    PostgresFence(String table) {
        super(Database.POSTGRESQL, table);
        this.updateSql = "update " + table + " set token = ? where lock_name = ?"
                + " and set_config('lock_timeout', coalesce(?, current_setting('lock_timeout')), true) is not null"
                + " and set_config('idle_in_transaction_session_timeout',"
                + " coalesce(?, current_setting('idle_in_transaction_session_timeout')), true) is not null"
                + " and token <= ? returning set_config('" + MARK + "', txid_current()::text || ?, true)";
        // set_config is volatile, so the failing branch is evaluated only when taken, never folded at planning
        this.pipelinedSql = "with raised as (" + updateSql + ") select case when (select count(*) from raised) = 1"
                + " then true else set_config('lock_timeout', '" + NOT_RAISED + "', true) is null end";
    }

    /**
     * True for pgjdbc (the {@value #PGJDBC}): it sends the statements of one {@code execute} as one
     * pipeline of the extended protocol closed by a single {@code Sync} (or, with {@code
     * preferQueryMode=simple}, as one multi-statement query), and PostgreSQL executes a pipeline's
     * statements in order and, after one fails, skips every message up to the {@code Sync}. So the
     * work's statement behind {@link #pipelinedEnterSql} runs only after the guard raised the row,
     * locked it and marked the transaction, exactly as if the guard had been a round trip of its
     * own. Other drivers for PostgreSQL are not vouched for: they get the guard alone.
     */
    @Override
    public boolean canPipeline(DatabaseMetaData meta) throws SQLException {
        return PGJDBC.equals(meta.getDriverName());
    }

    /**
     * The guard's update in a data-modifying {@code WITH} (always run to completion, so the bounds
     * and the mark are set as by {@link #raiseIfNotAbove}), and a select that fails with SQLState
     * {@code 22023} and {@value #NOT_RAISED} unless the update raised the row.
     */
    @Override
    public String pipelinedEnterSql(Duration bound) {
        return pipelinedSql;
    }

    @Override
    public int bindPipelined(PreparedStatement statement, String lockName, long token, Duration bound)
            throws SQLException {
        return bindUpdate(statement, lockName, token, bound);
    }

    /** The select's one row, true. */
    @Override
    public boolean confirmsPipelined(PreparedStatement pipeline, boolean resultSet) throws SQLException {
        ResultSet guardRow = resultSet ? pipeline.getResultSet() : null;
        return guardRow != null && guardRow.next() && guardRow.getBoolean(1);
    }

    /**
     * Also a missing fence table ({@code 42P01} naming it): the guard alone then says how to create
     * it. Either way the failure came from the guard, the first statement of the pipeline, so
     * nothing after it ran.
     */
    @Override
    public boolean isNotRaised(SQLException failure) {
        String message = failure.getMessage();
        if (message == null) {
            return false;
        }
        return ("22023".equals(failure.getSQLState()) && message.contains(NOT_RAISED))
                || ("42P01".equals(failure.getSQLState()) && message.contains("\"" + table + "\""));
    }

    /** Binds {@link #updateSql}'s parameters; returns how many. */
    private static int bindUpdate(PreparedStatement statement, String lockName, long token, Duration bound)
            throws SQLException {
        statement.setLong(1, token);
        statement.setString(2, lockName);
        statement.setString(3, millis(bound));
        statement.setString(4, idleMillis(bound));
        statement.setLong(5, token);
        statement.setString(6, markSuffix(lockName, token));
        return 6;
    }

    @Override
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(updateSql)) {
            bindUpdate(statement, lockName, token, bound);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next();
            }
        }
    }

    @Override
    public void bound(Connection connection, Duration bound) throws SQLException {
        if (bound == null) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement("select set_config('lock_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true)")) {
            statement.setString(1, millis(bound));
            statement.setString(2, idleMillis(bound));
            statement.execute();
        }
    }

    /** The bounds were set by {@link #bound} before the step that could not mark. */
    @Override
    public void mark(Connection connection, String lockName, long token, Duration bound) throws SQLException {
        execute(
                connection,
                "select set_config('" + MARK + "', txid_current()::text || ?, true)",
                markSuffix(lockName, token));
    }

    /** What follows the transaction's id in the mark. */
    private static String markSuffix(String lockName, long token) {
        return " " + token + " " + lockName;
    }

    @Override
    public void protect(Connection connection, String table) throws SQLException {
        if (!migrationInstalled(connection)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(migration());
            }
        }
        execute(connection, "call fencedlock_protect(?::regclass)", table);
    }

    /**
     * Whether {@code table} exists and it, its ancestors and its descendants (partitions,
     * inheritance children) each have the fence's trigger enabled (not disabled, not replica-only),
     * with the migration that binds marks to their transaction installed.
     */
    @Override
    public boolean isProtected(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(UNPROTECTED_MEMBERS)) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                return !rows.next();
            }
        }
    }

    /** The bypass, bound to the transaction like the mark: its id, then the reason. */
    @Override
    public void allowUnfenced(Connection connection, String reason) throws SQLException {
        execute(connection, "select set_config('fencedlock.unfenced', txid_current()::text || ' ' || ?, true)", reason);
    }

    private static boolean migrationInstalled(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("select to_regprocedure('fencedlock_unfenced(text)') is not null"
                                + " and to_regproc('fencedlock_protect') is not null")) {
            return rows.next() && rows.getBoolean(1);
        }
    }

    private static String migration() {
        try (InputStream in = PostgresFence.class.getResourceAsStream(MIGRATION)) {
            if (in == null) {
                throw new IllegalStateException("fencing-jdbc's " + MIGRATION + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
