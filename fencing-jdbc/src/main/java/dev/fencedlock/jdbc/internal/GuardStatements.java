package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;

/**
 * The fence guard's statements on one table, as each database runs them. The guard's first
 * statement does three things in one round trip where the database allows it:
 *
 * <ul>
 *   <li>raises the lock's row to the token unless it holds a larger one;
 *   <li>bounds the transaction's waits before it can wait on the row: PostgreSQL sets {@code
 *       lock_timeout} and {@code idle_in_transaction_session_timeout} (the bound plus {@link
 *       #IDLE_GRACE}) transaction-locally in the
 *       statement's filter, which runs before the row is locked; MariaDB runs the statement under
 *       {@code SET STATEMENT innodb_lock_wait_timeout} (whole seconds); its idle bound, a session
 *       setting, is a statement of its own that only callers who also restore the session run
 *       ({@link #limitIdle}, {@link #restoreSession}); H2, whose lock timeout is a session setting the guard leaves alone, waits as
 *       long as {@code LOCK_TIMEOUT} says (2 s in H2 2.5 unless set on the URL or
 *       session);
 *   <li>marks the transaction as fenced, only if the row was raised: PostgreSQL a
 *       transaction-local setting ({@code fencedlock.fenced}) in {@code RETURNING}, H2 the session
 *       variable {@code @FENCEDLOCK_FENCED} set to the transaction's number, the token, the table
 *       and the lock name ({@link H2SessionMarks}): for a session embedded
 *       in this JVM directly on the session once the update raised the row ({@link
 *       H2SessionMarks#markFenced}), for a remote one from {@code TRANSACTION_ID()} in the update's
 *       own {@code SET} clause, which H2 evaluates only for the row it has locked and found still
 *       matching. The triggers {@link dev.fencedlock.jdbc.FencedTables} installs on
 *       protected tables look for this mark.
 * </ul>
 *
 * <p>The rarer steps (the locking read, the insert of a lock's first row) are plain statements,
 * {@link #bounded} for MariaDB and preceded by {@link #bound} on PostgreSQL where the first
 * statement could not set the bound, and followed by {@link #mark}. Immutable and thread-safe.
 */
public final class GuardStatements {
    /**
     * The PostgreSQL setting the guard sets transaction-locally to {@code "<transaction id> <token>
     * <lock name>"}; the triggers compare the id with the current transaction's.
     */
    public static final String POSTGRESQL_MARK = "fencedlock.fenced";
    /**
     * The H2 session variable the guard sets to the transaction's number, token, table and lock
     * name; the triggers check that it names the current transaction and a fence row it holds.
     */
    public static final String H2_MARK = "@FENCEDLOCK_FENCED";

    /**
     * How much longer than the lease's remaining time a PostgreSQL or MariaDB transaction may sit idle before
     * the server ends it: a holder that wakes just after its lease ran out still reaches its commit
     * and gets the clear refusal of the lease check, rather than a connection the server closed.
     */
    public static final Duration IDLE_GRACE = Duration.ofSeconds(1);

    /** MariaDB: the session variable that bounds how long a transaction may sit idle. */
    public static final String MARIADB_IDLE = "idle_transaction_timeout";
    /** MariaDB: the user variable that keeps the session's own idle timeout while a guard's is set. */
    public static final String MARIADB_SAVED = "@fencedlock_idle_restore";

    private final Database database;
    private final String table;
    private final String updateSql;
    /** H2, an embedded session: the update without the mark, which is then set in the JVM. */
    private final String plainUpdateSql;

    private GuardStatements(Database database, String table) {
        this.database = database;
        this.table = table;
        this.updateSql = switch (database) {
            case POSTGRESQL ->
                "update " + table + " set token = ? where lock_name = ?"
                        + " and set_config('lock_timeout', coalesce(?, current_setting('lock_timeout')), true) is not null"
                        + " and set_config('idle_in_transaction_session_timeout',"
                        + " coalesce(?, current_setting('idle_in_transaction_session_timeout')), true) is not null"
                        + " and token <= ? returning set_config('" + POSTGRESQL_MARK
                        + "', pg_current_xact_id()::text || ?, true)";
            // the SET clause runs only for the row H2 locked and found still matching, so the mark
            // is set exactly when the row is raised; both branches write the token
            case H2 ->
                "update " + table + " set token = case when set(" + H2_MARK
                        + ", concat(transaction_id(), cast(? as varchar))) is null then ? else ? end"
                        + " where lock_name = ? and token <= ?";
            // collations may fold case and pad spaces; comparing bytes keeps names apart
            // the SET clause runs only for the row raised: the mark the protected tables' trigger checks
            case MARIADB ->
                "update " + table + " set token = if((" + MariaDbProtection.MARK
                        + " := concat(?, ' ', lock_name)) is null, ?, ?) where lock_name = ?"
                        + " and cast(lock_name as binary) = cast(? as binary) and token <= ?";
            case OTHER -> "update " + table + " set token = ? where lock_name = ? and token <= ?";
        };
        this.plainUpdateSql = "update " + table + " set token = ? where lock_name = ? and token <= ?";
    }

    /** The statements for {@code database} on {@code table} (a validated table name). */
    public static GuardStatements of(Database database, String table) {
        return new GuardStatements(database, table);
    }

    public Database database() {
        return database;
    }

    /**
     * The first statement: raises the row to {@code token} if it holds {@code token} or less,
     * bounding waits by {@code bound} (null: the database's own settings) and marking the
     * transaction where the database allows it.
     *
     * @return whether the row was raised (and the transaction marked)
     */
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        if (database == Database.H2 && H2SessionMarks.isEmbedded(connection)) {
            return raiseAndMarkInJvm(connection, lockName, token);
        }
        return raiseInStatement(connection, lockName, token, bound);
    }

    /** The first statement as a client of a remote database sends it: raises and marks in one. */
    boolean raiseInStatement(Connection connection, String lockName, long token, Duration bound) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(bounded(updateSql, bound))) {
            int i = 1;
            if (database == Database.H2) {
                statement.setString(i++, H2SessionMarks.markSuffix(token, table, lockName));
                statement.setLong(i++, token);
            } else if (database == Database.MARIADB) {
                statement.setLong(i++, token);
                statement.setLong(i++, token);
            }
            statement.setLong(i++, token);
            statement.setString(i++, lockName);
            switch (database) {
                case POSTGRESQL -> {
                    statement.setString(i++, millis(bound));
                    statement.setString(i++, idleMillis(bound));
                    statement.setLong(i++, token);
                    statement.setString(i, mark(lockName, token));
                    return hasRow(statement);
                }
                case MARIADB -> {
                    statement.setString(i++, lockName);
                    statement.setLong(i, token);
                    return statement.executeUpdate() == 1;
                }
                default -> {
                    statement.setLong(i, token);
                    return statement.executeUpdate() == 1;
                }
            }
        }
    }

    /**
     * H2 in this JVM: the plain update, then the mark set on the session directly ({@link
     * H2SessionMarks#markFenced}); cheaper than evaluating {@code SET(@FENCEDLOCK_FENCED,
     * TRANSACTION_ID())} in the statement, and still no second statement.
     */
    private boolean raiseAndMarkInJvm(Connection connection, String lockName, long token) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(plainUpdateSql)) {
            statement.setLong(1, token);
            statement.setString(2, lockName);
            statement.setLong(3, token);
            if (statement.executeUpdate() != 1) {
                return false;
            }
        }
        mark(connection, lockName, token);
        return true;
    }

    /**
     * PostgreSQL: bounds the transaction's waits by {@code bound} in a statement of its own, for the
     * steps that may wait when the first statement did not reach the row to set them (the insert
     * of a lock's first row). Does nothing for a null bound or on other databases.
     */
    public void bound(Connection connection, Duration bound) throws SQLException {
        if (bound == null || database != Database.POSTGRESQL) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement("select set_config('lock_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true)")) {
            statement.setString(1, millis(bound));
            statement.setString(2, idleMillis(bound));
            statement.execute();
        }
    }

    /**
     * MariaDB: bounds how long the transaction may sit idle between statements to {@code bound}
     * plus {@link #IDLE_GRACE} (whole seconds, rounded up) by setting the session's {@code
     * idle_transaction_timeout}; the server closes a connection whose transaction sits idle longer,
     * which rolls the transaction back and frees its row locks. MariaDB has no transaction-local
     * form, so the session's previous value is kept in the user variable {@value #MARIADB_SAVED}
     * (only if not kept already) for {@link #restoreSession} to put back after the transaction.
     * Does nothing for a null bound or on other databases (MySQL included: it has no such setting).
     */
    public void limitIdle(Connection connection, Duration bound) throws SQLException {
        if (bound == null || !hasIdleTimeout(connection)) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("set " + MARIADB_SAVED + " = coalesce(" + MARIADB_SAVED + ", @@session." + MARIADB_IDLE
                    + "), @@session." + MARIADB_IDLE + " = " + seconds(bound.plus(IDLE_GRACE)));
        }
    }

    /**
     * MariaDB/MySQL: clears the guard's mark ({@link MariaDbProtection#MARK}) and puts back the
     * session's {@code idle_transaction_timeout} that {@link #limitIdle} changed, so that the
     * connection's later transactions (a pool hands it to other work) neither carry the mark nor
     * are bounded by a lease they do not run under. One statement; nothing on other databases,
     * whose marks and bounds end with the transaction by themselves.
     */
    public void restoreSession(Connection connection) throws SQLException {
        if (database != Database.MARIADB) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            // a user variable never set is a null string: the cast keeps the value a number
            statement.execute("set " + MariaDbProtection.MARK + " = null"
                    + (hasIdleTimeout(connection)
                            ? ", @@session." + MARIADB_IDLE + " = cast(coalesce(" + MARIADB_SAVED + ", @@session."
                                    + MARIADB_IDLE + ") as unsigned), " + MARIADB_SAVED + " = null"
                            : ""));
        }
    }

    /**
     * MariaDB: {@code sql} run with its lock waits bounded by {@code bound}, without changing the
     * session; {@code sql} itself elsewhere or for a null bound.
     */
    public String bounded(String sql, Duration bound) {
        return database == Database.MARIADB && bound != null
                ? "set statement innodb_lock_wait_timeout=" + seconds(bound) + " for " + sql
                : sql;
    }

    /** Marks the transaction as fenced in a statement of its own, after a step that could not. */
    public void mark(Connection connection, String lockName, long token) throws SQLException {
        String suffix = database == Database.H2 ? H2SessionMarks.markSuffix(token, table, lockName) : null;
        if (database == Database.H2 && H2SessionMarks.markFenced(connection, suffix)) {
            return;
        }
        String sql = switch (database) {
            case POSTGRESQL -> "select set_config('" + POSTGRESQL_MARK + "', pg_current_xact_id()::text || ?, true)";
            case H2 -> "set " + H2_MARK + " = concat(transaction_id(), cast(? as varchar))";
            case MARIADB -> "set " + MariaDbProtection.MARK + " = ?";
            default -> null;
        };
        if (sql == null) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(
                    1,
                    switch (database) {
                        case POSTGRESQL -> mark(lockName, token);
                        case MARIADB -> token + " " + lockName;
                        default -> suffix;
                    });
            statement.execute();
        }
    }

    /** MariaDB has {@value #MARIADB_IDLE} (since 10.3); MySQL, which shares the driver and the rest, has not. */
    private boolean hasIdleTimeout(Connection connection) throws SQLException {
        return database == Database.MARIADB
                && connection
                        .getMetaData()
                        .getDatabaseProductName()
                        .toLowerCase(Locale.ROOT)
                        .contains("mariadb");
    }

    private static boolean hasRow(PreparedStatement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            return rows.next();
        }
    }

    /**
     * PostgreSQL: what follows the transaction's id in the mark. The trigger compares the id with
     * {@code pg_current_xact_id_if_assigned()}, so a mark set anywhere but in its own transaction
     * (for the session, on the URL, for a role) is worth nothing.
     */
    private static String mark(String lockName, long token) {
        return " " + token + " " + lockName;
    }

    /** At least 1 ms: 0 would switch PostgreSQL's timeouts off. */
    private static String millis(Duration bound) {
        return bound == null ? null : Long.toString(Math.max(1, ceilMillis(bound)));
    }

    private static String idleMillis(Duration bound) {
        return bound == null ? null : millis(bound.plus(IDLE_GRACE));
    }

    /** MariaDB counts whole seconds; at least 1, since 0 means not to wait at all. */
    private static long seconds(Duration bound) {
        return Math.max(1, (ceilMillis(bound) + 999) / 1000);
    }

    private static long ceilMillis(Duration bound) {
        long millis = bound.toMillis();
        return bound.minusMillis(millis).isZero() ? millis : millis + 1;
    }

    @Override
    public String toString() {
        return "GuardStatements[" + database + ", " + table + "]";
    }
}
