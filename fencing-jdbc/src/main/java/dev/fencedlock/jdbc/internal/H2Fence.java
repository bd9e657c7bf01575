package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The fence on H2: the guard's statements, the mark and the protected tables. H2's lock timeout is
 * a session setting the guard leaves alone ({@code LOCK_TIMEOUT}, 2 s in H2 2.5 unless set on the
 * URL or session), and H2 has no idle timeout, so there are no bounds here.
 *
 * <ul>
 *   <li>The mark is the session variable {@value #MARK}: {@code "<transaction number> <token>
 *       <table> <lock name>"} ({@link H2SessionMarks}). For a session embedded in this JVM the
 *       guard locks a row that already holds its token in H2's engine, or runs the plain update,
 *       and then sets the mark directly on the session ({@link #raiseIfNotAbove}, {@link
 *       H2SessionMarks#markFenced}); a remote client sets it from {@code TRANSACTION_ID()} in the
 *       update's own {@code SET} clause, which H2 evaluates only for the row it has locked and
 *       found still matching, so the mark is set exactly when the row is raised.
 *   <li>The trigger ({@link H2FenceTrigger}) accepts a write statement only if the mark names the
 *       current transaction and the fence row it names is locked by this transaction.
 *   <li>{@link #protect} creates the trigger ({@code FENCEDLOCK_<TABLE>}); the migration's alias
 *       {@code FENCEDLOCK_PROTECT} reaches it through {@link H2FenceTrigger#protect}, whose name
 *       databases keep. The operator's bypass {@value H2FenceTrigger#BYPASS} holds for the session.
 * </ul>
 */
final class H2Fence extends GuardStatements {
    /** The session variable the guard sets; the triggers check it names this transaction and a row it holds. */
    static final String MARK = "@FENCEDLOCK_FENCED";

    private final String updateSql;

    H2Fence(String table) {
        super(Database.H2, table);
        // both branches write the token
        this.updateSql = "update " + table + " set token = case when set(" + MARK
                + ", concat(transaction_id(), cast(? as varchar))) is null then ? else ? end"
                + " where lock_name = ? and token <= ?";
    }

    /**
     * H2 2.5 keeps a SERIALIZABLE transaction's snapshot across its wait for the fence row and
     * raises no concurrency failure for rows another transaction inserted or changed meanwhile: a
     * fenced transaction that waited for the previous holder of its lock (or an earlier
     * transaction of its own lease) would commit writes derived from a read that missed that
     * holder's commit, a lost update (guarantee 2). READ COMMITTED, H2's default, and REPEATABLE
     * READ read after the wait and keep it ({@code FenceGuardIT}).
     */
    @Override
    public void requireSafeIsolation(Connection connection) throws SQLException {
        if (connection.getTransactionIsolation() == Connection.TRANSACTION_SERIALIZABLE) {
            throw new SQLFeatureNotSupportedException(
                    "A fenced transaction cannot run at SERIALIZABLE on H2: H2 keeps such a transaction's"
                            + " snapshot across its wait for the fence row, so it could commit writes derived from"
                            + " a read that missed the previous holder's commit. Use READ COMMITTED (H2's default)"
                            + " or REPEATABLE READ",
                    "0A000");
        }
    }

    /**
     * On a session embedded in this JVM: where the row already holds {@code token} (every
     * transaction of a lease after its first), the row lock alone, taken in H2's engine ({@link
     * H2FenceRows#lockHolding}); else the plain update. Then the mark, set on the session.
     *
     * <p>Why the lock alone keeps the fence on H2 (docs/fencing.md, "The guarantees"; PostgreSQL
     * needs the new row version, see there):
     *
     * <ol>
     *   <li>A lower token is refused: the lock path is taken only when the locked row holds exactly
     *       {@code token}, read after the lock was granted; any other row goes to the update's
     *       {@code token <= ?} filter and the locking read, as before.
     *   <li>No lost update: the lock is the one H2's own {@code UPDATE} takes before it writes
     *       ({@code Table.lockRow}), held by the transaction until it ends, so every other fenced
     *       transaction of the lock, which takes the same lock first, waits for this one to end
     *       and the other way round. H2 2.x takes a READ COMMITTED statement's snapshot when the
     *       statement starts and a REPEATABLE READ transaction's snapshot of a table when its first
     *       statement on that table starts, so every read of the work comes after the lock, and
     *       after the commit of the transaction that held it before. A new row version adds
     *       nothing on H2: its {@code REPEATABLE READ} lock check compares the row's values, and the
     *       same token written back compares equal, so the update never made a waiting transaction
     *       fail where the lock alone lets it go on (SERIALIZABLE, whose snapshot covers every
     *       table from the first statement, is refused by {@link #requireSafeIsolation}).
     *   <li>The mark names this transaction and a row it holds: the trigger checks that the row's
     *       newest version carries this transaction's id, which the lock sets as the update did,
     *       and a rollback to a savepoint before the guard takes away with the lock.
     * </ol>
     */
    @Override
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        return switch (H2SessionMarks.lockHolding(connection, table, lockName, token)) {
            case REMOTE -> raiseInStatement(connection, lockName, token);
            case LOCKED_AND_MARKED -> true;
            case NOT_LOCKED -> {
                boolean raised = plainUpdate(connection, lockName, token);
                if (raised) {
                    mark(connection, lockName, token, bound);
                }
                yield raised;
            }
        };
    }

    /** The first statement as a client of a remote database sends it: raises and marks in one. */
    boolean raiseInStatement(Connection connection, String lockName, long token) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(updateSql)) {
            statement.setString(1, H2SessionMarks.markSuffix(token, table, lockName));
            statement.setLong(2, token);
            statement.setLong(3, token);
            statement.setString(4, lockName);
            statement.setLong(5, token);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public void mark(Connection connection, String lockName, long token, Duration bound) throws SQLException {
        if (!H2SessionMarks.markFenced(connection, token, table, lockName)) {
            execute(
                    connection,
                    "set " + MARK + " = concat(transaction_id(), cast(? as varchar))",
                    H2SessionMarks.markSuffix(token, table, lockName));
        }
    }

    /**
     * Creates the trigger on {@code table} unless it exists ({@code FENCEDLOCK_<TABLE>} in the
     * table's schema).
     */
    @Override
    public void protect(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String prefix = dot < 0 ? "" : table.substring(0, dot + 1);
        String name = dot < 0 ? table : table.substring(dot + 1);
        try (Statement statement = connection.createStatement()) {
            statement.execute("create trigger if not exists " + prefix + "fencedlock_" + name
                    + " before insert, update, delete on " + table + " call '" + H2FenceTrigger.class.getName() + "'");
        }
    }

    /** Whether {@code table} has a trigger that calls {@link H2FenceTrigger}. */
    @Override
    public boolean isProtected(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String sql = "select count(*) from information_schema.triggers where java_class = ?"
                + " and upper(event_object_table) = upper(?)"
                + (dot < 0 ? " and event_object_schema = schema()" : " and upper(event_object_schema) = upper(?)");
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, H2FenceTrigger.class.getName());
            statement.setString(2, dot < 0 ? table : table.substring(dot + 1));
            if (dot >= 0) {
                statement.setString(3, table.substring(0, dot));
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) > 0;
            }
        }
    }

    /** H2 has no transaction-local variables: the bypass holds for the session until {@link #clearUnfenced}. */
    @Override
    public void allowUnfenced(Connection connection, String reason) throws SQLException {
        execute(connection, "set " + H2FenceTrigger.BYPASS + " = ?", reason);
    }

    @Override
    public void clearUnfenced(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("set " + H2FenceTrigger.BYPASS + " = null");
        }
    }
}
