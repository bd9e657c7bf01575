package dev.fencedlock.jdbc;

import dev.fencedlock.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Asks the database whether a session is waiting for a row lock, so that a test can tell a blocked
 * statement from a slow one without timing it, and whether a session is still open.
 */
final class LockWaits {
    private final TestDatabase db;

    LockWaits(TestDatabase db) {
        this.db = db;
    }

    /** The database's id of the session on {@code connection}, for {@link #isWaiting} and {@link #isOpen}. */
    static long sessionId(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        String sql;
        if (product.contains("h2")) {
            sql = "select session_id()";
        } else if (product.contains("postgres")) {
            sql = "select pg_backend_pid()";
        } else if (product.contains("mariadb") || product.contains("mysql")) {
            sql = "select connection_id()";
        } else {
            throw new IllegalArgumentException("no session ids on " + connection);
        }
        try (PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /**
     * How long to wait between two {@link #isWaiting} calls. MariaDB refreshes its {@code
     * innodb_trx} table only when no one has read it for 100 ms: polled more often, it never
     * changes.
     */
    long pollMillis() {
        return db.kind() == TestDatabase.Kind.MARIADB ? 150 : 10;
    }

    /** Whether the server still has the session (it has not ended it, nor seen it closed). */
    boolean isOpen(long sessionId) {
        String sql = switch (db.kind()) {
            case H2 -> "select count(*) from information_schema.sessions where session_id = ?";
            case POSTGRESQL -> "select count(*) from pg_stat_activity where pid = ?";
            case MARIADB -> "select count(*) from information_schema.processlist where id = ?";
        };
        return db.queryLong(sql, sessionId) > 0;
    }

    /** Whether the session is waiting for a lock held by another transaction right now. */
    boolean isWaiting(long sessionId) {
        String sql = switch (db.kind()) {
            // H2 names no blocker while an insert waits for a racing insert of the same key to end;
            // its statement then runs far longer than any statement of these tests otherwise does
            case H2 ->
                "select count(*) from information_schema.sessions where session_id = ? and (blocker_id is not null"
                        + " or executing_statement_start < current_timestamp - interval '0.2' second)";
            case POSTGRESQL -> "select count(*) from pg_stat_activity where pid = ? and wait_event_type = 'Lock'";
            case MARIADB ->
                "select count(*) from information_schema.innodb_trx "
                        + "where trx_mysql_thread_id = ? and trx_state = 'LOCK WAIT'";
        };
        return db.queryLong(sql, sessionId) > 0;
    }
}
