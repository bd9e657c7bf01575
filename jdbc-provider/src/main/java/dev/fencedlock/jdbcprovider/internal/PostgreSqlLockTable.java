package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.postgresql.PGConnection;

/**
 * The lock table on PostgreSQL.
 *
 * <ul>
 *   <li>Clock: {@code statement_timestamp()}, when the server received the statement.
 *   <li>Server-side bounds: every statement is sent behind {@code SELECT set_config('lock_timeout',
 *       ..., true), set_config('statement_timeout', ..., true)} in the same round trip. The driver
 *       sends both before one Sync, so they run in one implicit transaction: the settings hold for
 *       the statement that follows and end with it (the pooled connection keeps its own). {@code
 *       statement_timeout} is {@link Session#serverMillis()}; {@code lock_timeout} is 1 ms (0 would
 *       mean "wait forever"), so a row or table another transaction holds locked fails the
 *       statement with SQLSTATE 55P03 at once, before the statement has changed anything. An
 *       extension or a release waits for a locked row up to its statement bound.
 *   <li>The grant's {@code UPDATE} and the read of the row go in that same round trip.
 *   <li>A grant whose answer never came: another connection ends its backend with {@code
 *       pg_terminate_backend(pid, timeout)}, which waits until the process has exited, and then
 *       clears the grant if it had landed.
 *   <li>A release that cleared the row is announced with {@code pg_notify(channel, lock_key)} in
 *       its {@code RETURNING} clause (one round trip); the notification is delivered when the
 *       release commits, and wakes waiters that {@code LISTEN} ({@link ReleaseListener}).
 * </ul>
 */
final class PostgreSqlLockTable extends LockTable {
    private static final String NOW = "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)";
    /** SQLSTATE lock_not_available (lock_timeout, NOWAIT) and deadlock_detected. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private static final String DEADLOCK = "40P01";
    /** Whether the PostgreSQL JDBC driver, an optional dependency, is there to ask for the backend's id. */
    private static final boolean PGJDBC = present("org.postgresql.PGConnection");

    PostgreSqlLockTable(String table) {
        super(table, NOW);
    }

    @Override
    boolean isLockConflict(SQLException e) {
        return LOCK_NOT_AVAILABLE.equals(e.getSQLState()) || DEADLOCK.equals(e.getSQLState());
    }

    @Override
    PreparedStatement prepareBounded(Session session, String sql) throws SQLException {
        long statementMillis = session.serverMillis();
        long lockMillis = session.waitForRowLocks() ? statementMillis : 1;
        return session.connection()
                .prepareStatement("SELECT set_config('lock_timeout', '" + lockMillis + "', true),"
                        + " set_config('statement_timeout', '" + statementMillis + "', true); " + sql);
    }

    @Override
    void skipBounds(PreparedStatement statement) throws SQLException {
        statement.getMoreResults();
    }

    @Override
    Row grantAndRead(Session session, String key, String lockName, String holder, long leaseMillis)
            throws SQLException {
        try (PreparedStatement statement = prepareBounded(session, grantSql() + "; " + readSql())) {
            bind(statement, holder, leaseMillis, key, lockName, key);
            statement.execute();
            skipBounds(statement); // to the update
            statement.getMoreResults(); // to the read
            return readRow(statement.getResultSet());
        }
    }

    @Override
    boolean release(Session session, String key, String holder) throws SQLException {
        try (PreparedStatement statement = prepareBounded(
                session,
                "UPDATE " + table()
                        + " SET holder = NULL WHERE lock_key = ? AND holder = ? RETURNING pg_notify(?, lock_key)")) {
            bind(statement, key, holder, channel());
            statement.execute();
            skipBounds(statement);
            try (ResultSet released = statement.getResultSet()) {
                return released.next();
            }
        }
    }

    /** The backend's process id, which the driver learned when it connected: no round trip. */
    @Override
    Long sessionId(Session session) throws SQLException {
        Connection connection = session.connection();
        return PGJDBC && connection.isWrapperFor(PGConnection.class)
                ? (long) connection.unwrap(PGConnection.class).getBackendPID()
                : null;
    }

    /**
     * {@code pg_terminate_backend} with a timeout waits until the backend has exited. Only a
     * backend that began before the connection was handed over is ended: a process id can be
     * reused once its backend is gone.
     */
    @Override
    void endSession(Session session, Session.ServerSession ended) throws SQLException {
        try (PreparedStatement statement = prepareBounded(
                session,
                "SELECT pg_terminate_backend(pid, CAST(? AS BIGINT)) FROM pg_stat_activity WHERE pid = CAST(? AS INTEGER)"
                        + " AND backend_start <= statement_timestamp() - CAST(? AS BIGINT) * INTERVAL '1 millisecond'")) {
            bind(statement, Math.max(1, session.serverMillis() / 2), ended.id(), ended.ageMillis());
            statement.execute();
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, PostgreSqlLockTable.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    boolean notifies() {
        return true;
    }
}
