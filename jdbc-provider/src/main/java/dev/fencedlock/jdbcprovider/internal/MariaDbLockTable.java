package dev.fencedlock.jdbcprovider.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;

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
 *       at once with error 1205; {@code max_statement_time} is {@link Session#serverMillis()}. A
 *       release may wait for a locked row for the whole seconds its statement bound allows (both
 *       lock timeouts are whole seconds).
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

    MariaDbLockTable(String table) {
        super(table, NOW);
    }

    @Override
    boolean isLockConflict(SQLException e) {
        return e.getErrorCode() == LOCK_WAIT_TIMEOUT || e.getErrorCode() == DEADLOCK;
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
