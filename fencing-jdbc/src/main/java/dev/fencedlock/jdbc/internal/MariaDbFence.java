package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;

/**
 * The fence on MariaDB/MySQL: the guard's statements, its bounds, the mark and the protected
 * tables.
 *
 * <p>The guard on MariaDB is one statement, an anonymous compound statement ({@code BEGIN NOT
 * ATOMIC ... END}, {@link #enterSql}), so that raising the row, marking the transaction and
 * bounding its idle time cost one round trip:
 *
 * <ol>
 *   <li>clear the mark {@value #MARK};
 *   <li>the update that raises the row unless it holds a larger token, its lock wait bounded by
 *       {@code SET STATEMENT innodb_lock_wait_timeout} (whole seconds, {@link #bounded}); its
 *       {@code SET} clause sets the mark to {@code "<token> <lock name>"}, so only for the row it
 *       raised (lock names are compared byte for byte, since collations may fold case and pad
 *       spaces);
 *   <li>no mark: fail with SQLState {@value #NOT_RAISED_STATE} and {@value #NOT_RAISED} ({@code
 *       SIGNAL}), so that nothing after the guard runs; the caller takes the guard's slower steps;
 *   <li>the idle bound: the session's {@value #IDLE}, its previous value kept in {@value #SAVED}.
 * </ol>
 *
 * <p>MariaDB has no transaction-local settings, so the mark and the idle bound outlive the
 * transaction unless put back: {@link #restoreSession} after it, or {@link #commitRestoring},
 * which puts them back and commits in one statement. On MySQL, which shares the driver but has no
 * compound statements outside stored programs and no idle bound, the guard is the update alone
 * and only the mark is put back.
 *
 * <p>Where the server can run the guard and the work's first statement in one round trip and skip
 * the second when the first fails ({@link #canPipeline}: MariaDB Connector/J with {@code
 * allowMultiQueries=true}, a multi-statement query), the guard travels with that statement. Without
 * it, Connector/J sends no two statements in one round trip that the server gates on each other:
 * its batches are pipelined, but the server runs every statement of a pipeline whatever the one
 * before did. A compound statement holding the work's statement too would be gated, but it
 * reports the sum of its statements' row counts and a status after a result set, so the work's
 * results would not be its own.
 *
 * <p>Protected tables: MariaDB has no transaction-local variables and no transaction id a
 * trigger could read fresh, so the mark cannot name its transaction; instead the trigger checks
 * the fence row itself:
 *
 * <ol>
 *   <li>the guard sets the mark only when it raised the row (no extra round trip); the rarer
 *       steps set it in a statement of their own ({@link #mark});
 *   <li>before each row a protected table's INSERT, UPDATE or DELETE changes, a trigger calls the
 *       procedure {@value #PROCEDURE}, which takes the named fence row {@code FOR UPDATE} and
 *       refuses the write (SQLState {@code 23F01}, naming the table) unless the row holds exactly
 *       the mark's token;
 *   <li>the mark is cleared when the transaction ends ({@link #commitRestoring}, {@link
 *       #restoreSession}: {@link FencedTransaction} runs one of them for every adapter).
 * </ol>
 *
 * <p>So a write is let through only while it holds the lock's fence row at the token of the newest
 * holder that entered: a stale holder (a newer token registered) is refused, and a write the row
 * lock orders after that holder's transaction cannot be lost to a newer one, which waits for it.
 * What is not refused: a mark left on a connection whose transaction ended without {@code
 * afterCompletion} (the Spring starter, a caller's own; fencing-jpa runs it before the connection
 * goes back to the pool) lets that connection's later
 * transactions write while no newer holder has entered, ordered after the mark's holder like a
 * second transaction of the same lease; a mark set by hand to the row's current token does the
 * same. The trigger runs with its definer's privileges, so the writer needs no access to the
 * fence table. Only the standard fence table ({@code fencedlock_fence}, in the protected table's
 * schema) is checked. Immutable and thread-safe.
 */
final class MariaDbFence extends GuardStatements {
    /** The user variable the guard sets; {@code "<token> <lock name>"}. */
    static final String MARK = "@fencedlock_fenced";
    /** The user variable an operator sets to write protected tables deliberately unfenced (session). */
    static final String BYPASS = "@fencedlock_unfenced";
    /** MariaDB: the session variable that bounds how long a transaction may sit idle. */
    static final String IDLE = "idle_transaction_timeout";
    /** MariaDB: the user variable that keeps the session's own idle timeout while a guard's is set. */
    static final String SAVED = "@fencedlock_idle_restore";
    /** What the guard fails with when it did not raise the row ({@link #isNotRaised}). */
    static final String NOT_RAISED = "fencedlock: the fence row was not raised";
    /** The SQLState of {@link #NOT_RAISED}: an unhandled user-defined condition. */
    static final String NOT_RAISED_STATE = "45000";
    /** The error code MariaDB gives a {@code SIGNAL}led condition. */
    private static final int SIGNALLED = 1644;
    /** MariaDB's own driver, whose multi-statement queries {@link #canPipeline} vouches for. */
    static final String CONNECTOR_J = "MariaDB Connector/J";

    static final String PROCEDURE = "fencedlock_require_fenced";
    private static final String[] EVENTS = {"insert", "update", "delete"};
    /** Puts back what the guard set on the session: the mark, and the idle timeout it saved. */
    private static final String RESTORE = "set " + MARK + " = null, @@session." + IDLE
            // a user variable never set is a null string: the cast keeps the value a number
            + " = cast(coalesce(" + SAVED + ", @@session." + IDLE + ") as unsigned), " + SAVED + " = null";

    private final String updateSql;

    MariaDbFence(String table) {
        super(Database.MARIADB, table);
        // the SET clause runs only for the row raised: it sets the mark the protected tables' trigger checks
        this.updateSql = "update " + table + " set token = if((" + MARK
                + " := concat(?, ' ', lock_name)) is null, ?, ?) where lock_name = ?"
                + " and cast(lock_name as binary) = cast(? as binary) and token <= ?";
    }

    /**
     * The guard in one statement (MariaDB): the update, a failure ({@value #NOT_RAISED}) unless it
     * raised the row, the idle bound. Its parameters are the update's ({@link #bindUpdate}).
     */
    private String enterSql(Duration bound) {
        return "begin not atomic set " + MARK + " = null; " + bounded(updateSql, bound) + "; if " + MARK
                + " is null then signal sqlstate '" + NOT_RAISED_STATE + "' set message_text = '" + NOT_RAISED
                + "'; end if;" + (bound == null ? "" : " set " + idleBound(bound) + ";") + " end";
    }

    /**
     * The assignments that set the session's idle timeout to {@code bound} plus the grace, keeping
     * its own value once.
     */
    private static String idleBound(Duration bound) {
        return SAVED + " = coalesce(" + SAVED + ", @@session." + IDLE + "), @@session." + IDLE + " = "
                + seconds(bound.plus(IDLE_GRACE));
    }

    /** Binds {@link #updateSql}'s parameters; returns how many. */
    private static int bindUpdate(PreparedStatement statement, String lockName, long token) throws SQLException {
        statement.setLong(1, token);
        statement.setLong(2, token);
        statement.setLong(3, token);
        statement.setString(4, lockName);
        statement.setString(5, lockName);
        statement.setLong(6, token);
        return 6;
    }

    /**
     * MariaDB: {@link #enterSql}, which also bounds the transaction's idle time when it raised the
     * row. MySQL: the update alone.
     */
    @Override
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        if (!isMariaDb(connection)) {
            try (PreparedStatement statement = connection.prepareStatement(bounded(updateSql, bound))) {
                bindUpdate(statement, lockName, token);
                return statement.executeUpdate() == 1;
            }
        }
        try (PreparedStatement statement = connection.prepareStatement(enterSql(bound))) {
            bindUpdate(statement, lockName, token);
            statement.execute();
            return true;
        } catch (SQLException e) {
            if (isSignalledNotRaised(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * True for MariaDB Connector/J ({@value #CONNECTOR_J}) on a MariaDB server with {@code
     * allowMultiQueries=true} and without {@code useServerPrepStmts=true} (both read from the URL
     * the driver reports, which names every option set, in the URL or as a property). The guard
     * and the work's statement then travel as one query of two statements; MariaDB executes them
     * in order, the second only after the first has finished, and stops at the first that fails.
     * So the work's statement behind {@link #pipelinedEnterSql} runs only after the guard raised
     * the row, locked it, marked the transaction and bounded its idle time, as if the guard had
     * been a round trip of its own. Without {@code allowMultiQueries} the server refuses a query of
     * two statements; with server-side prepared statements the driver first tries to prepare the
     * query, which the server refuses, and then sends it as text: a round trip more, no fewer than
     * the guard alone. Other drivers are not vouched for. All of these get the guard alone.
     */
    @Override
    public boolean canPipeline(DatabaseMetaData meta) throws SQLException {
        String url = meta.getURL();
        if (!CONNECTOR_J.equals(meta.getDriverName())
                || !"MariaDB".equals(meta.getDatabaseProductName())
                || url == null) {
            return false;
        }
        String options = url.toLowerCase(Locale.ROOT);
        return options.matches(".*[?&]allowmultiqueries=true(&.*)?")
                && !options.matches(".*[?&]useserverprepstmts=true(&.*)?");
    }

    /** {@link #enterSql}: it fails unless it raised the row, so the statement after it does not run. */
    @Override
    public String pipelinedEnterSql(Duration bound) {
        return enterSql(bound);
    }

    @Override
    public int bindPipelined(PreparedStatement statement, String lockName, long token, Duration bound)
            throws SQLException {
        return bindUpdate(statement, lockName, token);
    }

    /** The compound statement returns no result set, only its status: it ran to its end. */
    @Override
    public boolean confirmsPipelined(PreparedStatement pipeline, boolean resultSet) throws SQLException {
        return !resultSet && pipeline.getUpdateCount() >= 0;
    }

    /**
     * Also a missing fence table ({@code 42S02} naming it): the guard alone then says how to create
     * it. Either way the failure came from the guard, the first statement of the query, so nothing
     * after it ran.
     */
    @Override
    public boolean isNotRaised(SQLException failure) {
        String message = failure.getMessage();
        String name = table.substring(table.indexOf('.') + 1);
        return isSignalledNotRaised(failure)
                || ("42S02".equals(failure.getSQLState()) && message != null && message.contains(name + "'"));
    }

    private static boolean isSignalledNotRaised(SQLException failure) {
        return failure.getErrorCode() == SIGNALLED
                && failure.getMessage() != null
                && failure.getMessage().contains(NOT_RAISED);
    }

    /** {@code sql} run with its lock waits bounded by {@code bound}, without changing the session. */
    @Override
    public String bounded(String sql, Duration bound) {
        return bound == null ? sql : "set statement innodb_lock_wait_timeout=" + seconds(bound) + " for " + sql;
    }

    /**
     * Sets the mark and (MariaDB, given a bound) bounds how long the transaction may sit idle
     * between statements to {@code bound} plus {@link #IDLE_GRACE} (whole seconds, rounded up),
     * keeping the session's own idle timeout in {@value #SAVED} (only if not kept already): one
     * statement. The server closes a connection whose transaction sits idle longer, which rolls
     * the transaction back and frees its row locks.
     */
    @Override
    public void mark(Connection connection, String lockName, long token, Duration bound) throws SQLException {
        boolean idle = bound != null && isMariaDb(connection);
        execute(connection, "set " + MARK + " = ?" + (idle ? ", " + idleBound(bound) : ""), token + " " + lockName);
    }

    /**
     * Clears the guard's mark and puts back the session's {@value #IDLE} that the guard changed,
     * so that the connection's later transactions (a pool hands it to other work) neither carry
     * the mark nor are bounded by a lease they do not run under. One statement.
     */
    @Override
    public void restoreSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(isMariaDb(connection) ? RESTORE : "set " + MARK + " = null");
        }
    }

    /**
     * MariaDB Connector/J on a MariaDB server: {@link #restoreSession}'s statement, then {@code
     * COMMIT}, then, if asked, autocommit on, as one compound statement: one round trip. The
     * session is put back before the commit, which no write follows; if the commit fails, nothing
     * after it runs and the caller puts the session back after its rollback. The driver learns
     * that the transaction ended and autocommit is on from the server's status in its reply, as it
     * does for its own {@code commit} and {@code setAutoCommit}. False, having run nothing, with
     * other drivers and on MySQL.
     */
    @Override
    public boolean commitRestoring(Connection connection, boolean thenAutoCommit) throws SQLException {
        if (!canCommitRestoring(connection.getMetaData())) {
            return false;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("begin not atomic " + RESTORE + "; commit;"
                    + (thenAutoCommit ? " set autocommit = 1;" : "") + " end");
        }
        return true;
    }

    /** MariaDB Connector/J ({@value #CONNECTOR_J}) on a MariaDB server. */
    @Override
    public boolean canCommitRestoring(DatabaseMetaData meta) throws SQLException {
        return CONNECTOR_J.equals(meta.getDriverName()) && "MariaDB".equals(meta.getDatabaseProductName());
    }

    /**
     * MariaDB has {@value #IDLE} (since 10.3) and compound statements (since 10.1); MySQL, which
     * shares the driver and the rest, has not.
     */
    private static boolean isMariaDb(Connection connection) throws SQLException {
        return connection
                .getMetaData()
                .getDatabaseProductName()
                .toLowerCase(Locale.ROOT)
                .contains("mariadb");
    }

    /** The bypass holds for the session until {@link #clearUnfenced}: MariaDB has no transaction-local variables. */
    @Override
    public void allowUnfenced(Connection connection, String reason) throws SQLException {
        execute(connection, "set " + BYPASS + " = ?", reason);
    }

    @Override
    public void clearUnfenced(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("set " + BYPASS + " = null");
        }
    }

    /**
     * Creates the procedure in {@code table}'s schema unless it exists, and the three triggers
     * ({@code fencedlock_<table>_insert}, {@code _update}, {@code _delete}) unless they exist.
     */
    @Override
    public void protect(Connection connection, String table) throws SQLException {
        String schema = schemaPrefix(table);
        try (Statement statement = connection.createStatement()) {
            statement.execute("create procedure if not exists " + schema + PROCEDURE
                    + "(protected_table varchar(200)) sql security definer modifies sql data begin"
                    + " declare claimed_token bigint default null;"
                    + " declare claimed_lock varchar(256) default null;"
                    + " declare registered bigint default null;"
                    + " declare refusal varchar(1000);"
                    + " declare continue handler for not found set registered = null;"
                    + " if " + BYPASS + " is null then"
                    + " if " + MARK + " is not null and locate(' ', " + MARK + ") > 0 then"
                    + " set claimed_token = cast(substring_index(" + MARK + ", ' ', 1) as signed);"
                    + " set claimed_lock = substring(" + MARK + ", locate(' ', " + MARK + ") + 1);"
                    + " select token into registered from fencedlock_fence where lock_name = claimed_lock"
                    + " and cast(lock_name as binary) = cast(claimed_lock as binary) for update;"
                    + " end if;"
                    + " if registered is null or claimed_token is null or registered <> claimed_token then"
                    + " set refusal = concat('fencedlock: write on protected table ',"
                    + " protected_table, ' outside a fenced transaction is refused (no fence guard ran for the"
                    + " newest token of a lock). Write it in a fenced transaction (JdbcFencing.inTransaction,"
                    + " fencing-jpa''s Fencing.bind, Spring''s @Locked); an operator''s deliberate fix-up runs"
                    + " SET " + BYPASS + " = ''<reason>'' first (for the session, until set to NULL)');"
                    + " signal sqlstate '23F01' set message_text = refusal;"
                    + " end if; end if; end");
            String name = table.substring(table.indexOf('.') + 1);
            for (String event : EVENTS) {
                statement.execute("create trigger if not exists " + schema + triggerName(name, event) + " before "
                        + event + " on " + table + " for each row call " + schema + PROCEDURE + "('" + table + "')");
            }
        }
    }

    /** Whether {@code table} has the three triggers calling the procedure, and the procedure exists. */
    @Override
    public boolean isProtected(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String name = table.substring(dot + 1);
        String schema = dot < 0 ? "database()" : "?";
        try (PreparedStatement statement = connection.prepareStatement("select"
                + " (select count(*) from information_schema.triggers where event_object_schema = " + schema
                + " and event_object_table = ? and action_timing = 'BEFORE' and action_orientation = 'ROW'"
                + " and trigger_name in (?, ?, ?) and action_statement like ?),"
                + " (select count(*) from information_schema.routines where routine_schema = " + schema
                + " and routine_name = ? and routine_type = 'PROCEDURE')")) {
            int i = 1;
            if (dot >= 0) {
                statement.setString(i++, table.substring(0, dot));
            }
            statement.setString(i++, name);
            for (String event : EVENTS) {
                statement.setString(i++, triggerName(name, event));
            }
            statement.setString(i++, "%" + PROCEDURE + "%");
            if (dot >= 0) {
                statement.setString(i++, table.substring(0, dot));
            }
            statement.setString(i, PROCEDURE);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) == EVENTS.length && rows.getInt(2) == 1;
            }
        }
    }

    private static String schemaPrefix(String table) {
        int dot = table.indexOf('.');
        return dot < 0 ? "" : table.substring(0, dot + 1);
    }

    private static String triggerName(String table, String event) {
        return "fencedlock_" + table + "_" + event;
    }
}
