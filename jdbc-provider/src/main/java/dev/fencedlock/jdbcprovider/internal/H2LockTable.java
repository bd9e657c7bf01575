package dev.fencedlock.jdbcprovider.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The lock table on H2.
 *
 * <ul>
 *   <li>Clock: {@code CURRENT_TIMESTAMP}, fixed per command in autocommit mode.
 *   <li>Server-side bounds: H2's lock timeout is a session setting, so each call reads the
 *       session's ({@code LOCK_TIMEOUT()}), sets {@code SET LOCK_TIMEOUT 1} for its statements
 *       (0 would mean H2's default of 2 s) and puts the session's back afterwards. A row another
 *       transaction holds locked fails the statement with error 50200 at once. An extension or a
 *       release may wait for a locked row up to {@link Session#serverMillis()}. H2 runs in the client's JVM or
 *       answers over its TCP server, so nothing else can keep a statement running after the
 *       client gave up.
 * </ul>
 */
final class H2LockTable extends LockTable {
    private static final String NOW = "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
    /** ErrorCode.LOCK_TIMEOUT_1 and ErrorCode.DEADLOCK_1. */
    private static final int LOCK_TIMEOUT = 50200;

    private static final int DEADLOCK = 40001;

    H2LockTable(String table) {
        super(table, NOW);
    }

    @Override
    boolean isLockConflict(SQLException e) {
        return e.getErrorCode() == LOCK_TIMEOUT || e.getErrorCode() == DEADLOCK;
    }

    @Override
    PreparedStatement prepareBounded(Session session, String sql) throws SQLException {
        return session.connection().prepareStatement(sql);
    }

    @Override
    <T> T withinBounds(Session session, SqlWork<T> work) throws SQLException {
        long sessions;
        try (Statement statement = session.connection().createStatement();
                ResultSet timeout = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
            timeout.next();
            sessions = timeout.getLong(1);
        }
        setLockTimeout(session, session.waitForRowLocks() ? session.serverMillis() : 1);
        try {
            return work.run();
        } finally {
            setLockTimeout(session, sessions);
        }
    }

    private static void setLockTimeout(Session session, long millis) throws SQLException {
        try (Statement statement = session.unboundedConnection().createStatement()) {
            statement.execute("SET LOCK_TIMEOUT " + millis);
        }
    }
}
