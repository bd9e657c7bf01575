package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;

/**
 * The fence guard's statements on one table as one database runs them, and everything else of the
 * fence that differs per database: the mark that protected tables' triggers check, the bounds on
 * waiting and idling, the protection DDL and the operator's bypass. One subclass per database owns
 * all of it, so that a reader of one database's fence reads one file: {@link PostgresFence}, {@link
 * H2Fence}, {@link MariaDbFence}. This class itself is the portable fence of other databases: a
 * plain update, no mark, no bounds, no protected tables.
 *
 * <p>The guard's first statement ({@link #raiseIfNotAbove}) does three things in one round trip
 * where the database allows it: raises the lock's row to the token unless it holds a larger one;
 * bounds the transaction's waits before it can wait on the row (and how long it may then sit
 * idle); marks the transaction as fenced, only if the row was raised. The rarer steps (the locking read, the insert of a lock's first
 * row) are plain statements, {@link #bounded} and preceded by {@link #bound} where the first
 * statement could not set the bound, and followed by {@link #mark}. Immutable and thread-safe.
 */
class GuardStatements {
    /**
     * How much longer than the lease's remaining time a PostgreSQL or MariaDB transaction may sit
     * idle before the server ends it: a holder that wakes just after its lease ran out still
     * reaches its commit and gets the clear refusal of the lease check, rather than a connection
     * the server closed.
     */
    public static final Duration IDLE_GRACE = Duration.ofSeconds(1);

    private final Database database;
    final String table;
    /** The update without any database's additions. */
    final String plainUpdateSql;

    GuardStatements(Database database, String table) {
        this.database = database;
        this.table = table;
        this.plainUpdateSql = "update " + table + " set token = ? where lock_name = ? and token <= ?";
    }

    /** The statements for {@code database} on {@code table} (a validated table name). */
    public static GuardStatements of(Database database, String table) {
        return switch (database) {
            case POSTGRESQL -> new PostgresFence(table);
            case H2 -> new H2Fence(table);
            case MARIADB -> new MariaDbFence(table);
            case OTHER -> new GuardStatements(database, table);
        };
    }

    public final Database database() {
        return database;
    }

    /**
     * Refuses an isolation level at which this database cannot keep the fence guarantee, before
     * anything is run. Every level passes by default.
     *
     * @throws SQLException (SQLState {@code 0A000}) naming the level and the levels to use instead
     */
    public void requireSafeIsolation(Connection connection) throws SQLException {}

    /**
     * The first statement: raises the row to {@code token} if it holds {@code token} or less,
     * bounding waits by {@code bound} (null: the database's own settings) and marking the
     * transaction where the database allows it.
     *
     * @return whether the row was raised (and the transaction marked)
     */
    public boolean raiseIfNotAbove(Connection connection, String lockName, long token, Duration bound)
            throws SQLException {
        return plainUpdate(connection, lockName, token);
    }

    /** {@link #plainUpdateSql}: whether it raised the row. */
    final boolean plainUpdate(Connection connection, String lockName, long token) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(plainUpdateSql)) {
            statement.setLong(1, token);
            statement.setString(2, lockName);
            statement.setLong(3, token);
            return statement.executeUpdate() == 1;
        }
    }

    /**
     * Whether the guard can travel in one round trip ahead of the work's first statement on a
     * connection described by {@code meta}: true only where the database executes the statements of
     * one round trip in order and skips every one after a failure (see {@link PostgresFence}, {@link
     * MariaDbFence}). False by default: the guard is then a round trip of its own.
     */
    public boolean canPipeline(DatabaseMetaData meta) throws SQLException {
        return false;
    }

    /**
     * The guard as a statement that fails unless it raised the row ({@link #isNotRaised} tells that
     * failure apart), to be sent in front of the work's first statement, separated by {@code ;}.
     * Its parameters are bound by {@link #bindPipelined}; it bounds the transaction's waits by
     * {@code bound} (null: the database's own settings), as {@link #raiseIfNotAbove} does.
     *
     * @throws UnsupportedOperationException where {@link #canPipeline} is false
     */
    public String pipelinedEnterSql(Duration bound) {
        throw new UnsupportedOperationException(database + " cannot send the guard with the work's first statement");
    }

    /**
     * Binds {@link #pipelinedEnterSql}'s parameters, the first ones of {@code statement}.
     *
     * @return how many parameters the guard took: the work's parameter {@code i} is the statement's
     *     {@code i} plus this
     */
    public int bindPipelined(PreparedStatement statement, String lockName, long token, Duration bound)
            throws SQLException {
        throw new UnsupportedOperationException(database + " cannot send the guard with the work's first statement");
    }

    /**
     * Whether the first result of a pipeline that ran without failing, on {@code pipeline}
     * ({@code resultSet}: whether it is a result set), is what {@link #pipelinedEnterSql} returns
     * when it raised the row. Reads that result, never more.
     *
     * @throws UnsupportedOperationException where {@link #canPipeline} is false
     */
    public boolean confirmsPipelined(PreparedStatement pipeline, boolean resultSet) throws SQLException {
        throw new UnsupportedOperationException(database + " cannot send the guard with the work's first statement");
    }

    /**
     * Whether {@code failure} is {@link #pipelinedEnterSql}'s own refusal: the row was not raised
     * (it holds a larger token, or the lock has no row yet), and nothing after the guard ran.
     */
    public boolean isNotRaised(SQLException failure) {
        return false;
    }

    /**
     * Bounds the transaction's waits by {@code bound} in a statement of its own, for the steps
     * that may wait when the first statement did not reach the row to set them (the insert of a
     * lock's first row). Nothing for a null bound or where the database's bounds are per
     * statement ({@link #bounded}) or absent.
     */
    public void bound(Connection connection, Duration bound) throws SQLException {}

    /**
     * After the transaction: gives the session back what the guard changed for the transaction's
     * sake and the database cannot scope to it (MariaDB's mark and idle bound). Nothing where
     * marks and bounds end with the transaction by themselves.
     */
    public void restoreSession(Connection connection) throws SQLException {}

    /**
     * Whether {@link #commitRestoring} does its work on a connection described by {@code meta}
     * (MariaDB through Connector/J). False by default.
     */
    public boolean canCommitRestoring(DatabaseMetaData meta) throws SQLException {
        return false;
    }

    /**
     * Commits the transaction and gives the session back as {@link #restoreSession} does, and, if
     * {@code thenAutoCommit}, switches autocommit on, all in one round trip, where the database
     * and its driver allow it (MariaDB through Connector/J).
     *
     * @return true if done; false, having run nothing, where the caller must commit and restore
     *     the session itself (nothing to restore but on MariaDB/MySQL)
     * @throws SQLException if the commit failed, or the session could not be given back (then
     *     nothing was committed); the caller rolls back and restores the session
     */
    public boolean commitRestoring(Connection connection, boolean thenAutoCommit) throws SQLException {
        return false;
    }

    /** {@code sql} run with its lock waits bounded by {@code bound} where the database bounds them per statement. */
    public String bounded(String sql, Duration bound) {
        return sql;
    }

    /**
     * Marks the transaction as fenced in a statement of its own, after a step that could not, and
     * bounds how long it may sit idle by {@code bound} where the first statement would have
     * (MariaDB).
     */
    public void mark(Connection connection, String lockName, long token, Duration bound) throws SQLException {}

    /** Protects {@code table} (a validated name): the database refuses writes to it outside a fenced transaction. */
    public void protect(Connection connection, String table) throws SQLException {
        throw unsupported(connection);
    }

    /** Whether {@code table} is protected, with every part the protection needs present and enabled. */
    public boolean isProtected(Connection connection, String table) throws SQLException {
        throw unsupported(connection);
    }

    /** Lets the transaction begun on {@code connection} write protected tables unfenced, with {@code reason}. */
    public void allowUnfenced(Connection connection, String reason) throws SQLException {
        throw unsupported(connection);
    }

    /** Clears what {@link #allowUnfenced} left on the session beyond its transaction; nothing where it ends with it. */
    public void clearUnfenced(Connection connection) throws SQLException {}

    private static SQLFeatureNotSupportedException unsupported(Connection connection) throws SQLException {
        return new SQLFeatureNotSupportedException(
                "Protected tables need PostgreSQL, H2 or MariaDB/MySQL; "
                        + connection.getMetaData().getDatabaseProductName()
                        + " has no trigger mechanism fencedlock knows. "
                        + "There, fencing-jpa and the Spring starter refuse unfenced writes in the client; see docs/fencing.md");
    }

    /** Runs {@code sql} with {@code parameter} as its one string parameter. */
    static void execute(Connection connection, String sql, String parameter) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            statement.execute();
        }
    }

    /** At least 1 ms: 0 would switch PostgreSQL's timeouts off. */
    static String millis(Duration bound) {
        return bound == null ? null : Long.toString(Math.max(1, ceilMillis(bound)));
    }

    static String idleMillis(Duration bound) {
        return bound == null ? null : millis(bound.plus(IDLE_GRACE));
    }

    /** MariaDB counts whole seconds; at least 1, since 0 means not to wait at all. */
    static long seconds(Duration bound) {
        return Math.max(1, (ceilMillis(bound) + 999) / 1000);
    }

    private static long ceilMillis(Duration bound) {
        long millis = bound.toMillis();
        return bound.minusMillis(millis).isZero() ? millis : millis + 1;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + database + ", " + table + "]";
    }
}
