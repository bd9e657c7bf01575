package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The lock table on MariaDB.
 *
 * <ul>
 *   <li>Clock: {@code UTC_TIMESTAMP(6)}, fixed at the start of the statement and independent of
 *       the session's time zone.
 *   <li>Server-side bounds: every statement runs under {@code SET STATEMENT
 *       innodb_lock_wait_timeout=0, lock_wait_timeout=0, max_statement_time=... FOR}, which holds
 *       for that statement alone. A row lock (InnoDB) or a table's metadata lock (a migration's
 *       {@code ALTER TABLE}, {@code LOCK TABLES}) held by another transaction fails the statement
 *       at once with error 1205; {@code max_statement_time} is {@link Session#serverMillis()}. An
 *       extension or a release may wait for a locked row for the whole seconds its statement bound allows (both
 *       lock timeouts are whole seconds).
 *   <li>A grant whose answer never came: another connection ends its thread with {@code KILL
 *       CONNECTION} (its id asked once per connection with {@code CONNECTION_ID()}), waits until
 *       the thread has left the process list, and then clears the grant if it had landed.
 *   <li>Two round trips per grant attempt (the {@code UPDATE}, then the read of the row): the
 *       {@code UPDATE} has no {@code RETURNING}, and the application's data source may not allow
 *       several statements in one.
 * </ul>
 */
final class MariaDbLockTable extends LockTable {
    private static final String NOW = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    /** ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK. */
    private static final int LOCK_WAIT_TIMEOUT = 1205;

    private static final int DEADLOCK = 1213;
    /** ER_NO_SUCH_THREAD. */
    private static final int UNKNOWN_THREAD = 1094;

    private final Map<Connection, Long> sessionIds = Collections.synchronizedMap(new WeakHashMap<>());

    MariaDbLockTable(String table) {
        super(table, NOW);
    }

    @Override
    boolean isLockConflict(SQLException e) {
        return e.getErrorCode() == LOCK_WAIT_TIMEOUT || e.getErrorCode() == DEADLOCK;
    }

    /** {@code CONNECTION_ID()}, asked once per physical connection. */
    @Override
    Long sessionId(Session session) throws SQLException {
        Connection physical = session.connection().unwrap(Connection.class);
        Long known = sessionIds.get(physical);
        if (known == null) {
            try (PreparedStatement statement = prepareBounded(session, "SELECT CONNECTION_ID()");
                    ResultSet id = statement.executeQuery()) {
                id.next();
                known = id.getLong(1);
            }
            sessionIds.put(physical, known);
        }
        return known;
    }

    /** {@code KILL CONNECTION}, then waits until the thread has left the process list. */
    @Override
    void endSession(Session session, Session.ServerSession ended) throws SQLException {
        long id = ended.id();
        try (Statement kill = session.connection().createStatement()) {
            kill.execute("KILL CONNECTION " + id);
        } catch (SQLException e) {
            if (e.getErrorCode() != UNKNOWN_THREAD) {
                throw e;
            }
            return;
        }
        while (true) {
            try (PreparedStatement statement =
                    prepareBounded(session, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?")) {
                bind(statement, id);
                try (ResultSet alive = statement.executeQuery()) {
                    alive.next();
                    if (alive.getLong(1) == 0) {
                        return;
                    }
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while ending a session", e);
            }
        }
    }

    @Override
    PreparedStatement prepareBounded(Session session, String sql) throws SQLException {
        long statementMillis = session.serverMillis();
        long lockSeconds = session.waitForRowLocks() ? statementMillis / 1000 : 0;
        return session.connection()
                .prepareStatement("SET STATEMENT innodb_lock_wait_timeout=" + lockSeconds + ", lock_wait_timeout="
                        + lockSeconds + ", max_statement_time=" + statementMillis / 1000 + "."
                        + String.format("%03d", statementMillis % 1000) + " FOR " + sql);
    }
}
