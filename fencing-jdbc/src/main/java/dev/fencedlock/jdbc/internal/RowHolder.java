package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What the database can tell of the transaction that holds a fence row, for the message of a wait
 * that ran out. PostgreSQL: the row's {@code xmax} is the id of the transaction that updated or
 * locked it, and {@code pg_stat_activity} knows that transaction's backend. Other databases keep
 * row locks where an unprivileged client cannot match them to a session: empty. Stateless.
 */
final class RowHolder {
    private RowHolder() {}

    /** Runs outside the failed transaction: the caller has rolled it back. */
    public static Optional<String> describe(Connection connection, Database database, String table, String lockName)
            throws SQLException {
        if (database != Database.POSTGRESQL) {
            return Optional.empty();
        }
        String sql = "select a.pid, a.state, extract(epoch from now() - a.xact_start),"
                + " extract(epoch from now() - a.state_change), a.application_name"
                + " from " + table + " f join pg_stat_activity a on a.backend_xid = f.xmax where f.lock_name = ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, lockName);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                String application = rows.getString(5);
                return Optional.of(String.format(
                        "PostgreSQL backend pid %d%s, transaction open for %.1f s, %s for %.1f s",
                        rows.getInt(1),
                        application == null || application.isEmpty() ? "" : " (" + application + ")",
                        rows.getDouble(3),
                        rows.getString(2),
                        rows.getDouble(4)));
            }
        }
    }
}
