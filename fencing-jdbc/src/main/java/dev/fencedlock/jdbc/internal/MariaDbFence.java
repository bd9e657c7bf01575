package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
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
 * <p>Bounds: the guard's statements run under {@code SET STATEMENT innodb_lock_wait_timeout} (whole
 * seconds, {@link #bounded}); the idle bound ({@code idle_transaction_timeout}, MariaDB only) is a
 * session setting, so it is a statement of its own that only callers who also restore the session
 * run ({@link #limitIdle}, {@link #restoreSession}). Lock names are compared byte for byte, since
 * collations may fold case and pad spaces.
 *
 * <p>Protected tables: MariaDB has no transaction-local variables and no transaction id a
 * trigger could read fresh, so the mark cannot name its transaction; instead the trigger checks
 * the fence row itself:
 *
 * <ol>
 *   <li>the guard's first statement sets the user variable {@value #MARK} to {@code "<token> <lock
 *       name>"} in its own {@code SET} clause, so only when it raised the row (no extra round
 *       trip); the rarer steps set it in a statement of their own;
 *   <li>before each row a protected table's INSERT, UPDATE or DELETE changes, a trigger calls the
 *       procedure {@value #PROCEDURE}, which takes the named fence row {@code FOR UPDATE} and
 *       refuses the write (SQLState {@code 23F01}, naming the table) unless the row holds exactly
 *       the mark's token;
 *   <li>{@link #restoreSession} clears the mark after the transaction ({@code
 *       FenceGuard#afterCompletion}, which {@link FencedTransaction} runs for every adapter).
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

    static final String PROCEDURE = "fencedlock_require_fenced";
    private static final String[] EVENTS = {"insert", "update", "delete"};

    private final String updateSql;

    MariaDbFence(String table) {
        super(Database.MARIADB, table);
        // the SET clause runs only for the row raised: it sets the mark the protected tables' trigger checks
        this.updateSql = "update " + table + " set token = if((" + MARK
                + " := concat(?, ' ', lock_name)) is null, ?, ?) where lock_name = ?"
                + " and cast(lock_name as binary) = cast(? as binary) and token <= ?";
    }

    @Override
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(bounded(updateSql, bound))) {
            statement.setLong(1, token);
            statement.setLong(2, token);
            statement.setLong(3, token);
            statement.setString(4, lockName);
            statement.setString(5, lockName);
            statement.setLong(6, token);
            return statement.executeUpdate() == 1;
        }
    }

    /** {@code sql} run with its lock waits bounded by {@code bound}, without changing the session. */
    @Override
    public String bounded(String sql, Duration bound) {
        return bound == null ? sql : "set statement innodb_lock_wait_timeout=" + seconds(bound) + " for " + sql;
    }

    @Override
    public void mark(Connection connection, String lockName, long token) throws SQLException {
        execute(connection, "set " + MARK + " = ?", token + " " + lockName);
    }

    /**
     * Bounds how long the transaction may sit idle between statements to {@code bound} plus {@link
     * #IDLE_GRACE} (whole seconds, rounded up) by setting the session's {@value #IDLE}; the server
     * closes a connection whose transaction sits idle longer, which rolls the transaction back and
     * frees its row locks. MariaDB has no transaction-local form, so the session's previous value
     * is kept in the user variable {@value #SAVED} (only if not kept already) for {@link
     * #restoreSession} to put back after the transaction. Nothing for a null bound, and on MySQL,
     * which has no such setting.
     */
    @Override
    public void limitIdle(Connection connection, Duration bound) throws SQLException {
        if (bound == null || !hasIdleTimeout(connection)) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("set " + SAVED + " = coalesce(" + SAVED + ", @@session." + IDLE + "), @@session." + IDLE
                    + " = " + seconds(bound.plus(IDLE_GRACE)));
        }
    }

    /**
     * Clears the guard's mark and puts back the session's {@value #IDLE} that {@link #limitIdle}
     * changed, so that the connection's later transactions (a pool hands it to other work) neither
     * carry the mark nor are bounded by a lease they do not run under. One statement.
     */
    @Override
    public void restoreSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // a user variable never set is a null string: the cast keeps the value a number
            statement.execute("set " + MARK + " = null"
                    + (hasIdleTimeout(connection)
                            ? ", @@session." + IDLE + " = cast(coalesce(" + SAVED + ", @@session." + IDLE
                                    + ") as unsigned), " + SAVED + " = null"
                            : ""));
        }
    }

    /** MariaDB has {@value #IDLE} (since 10.3); MySQL, which shares the driver and the rest, has not. */
    private static boolean hasIdleTimeout(Connection connection) throws SQLException {
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
