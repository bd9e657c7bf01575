package dev.fencedlock.faults.jdbc;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A counter in the same database as the lock table, written only in fenced transactions: the
 * first statement is {@code fencing-jdbc}'s fence guard ({@link FencedTransaction#begin}), which refuses a token below
 * one the lock's fence row has already seen. Thread-safe.
 */
final class FencedCounter {
    private final DataSource dataSource;
    private final String lockName;

    private FencedCounter(DataSource dataSource, String lockName) {
        this.dataSource = dataSource;
        this.lockName = lockName;
    }

    /** Creates the counters table if needed and the counter of {@code lockName} at zero. */
    static FencedCounter create(DataSource dataSource, String lockName) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS fenced_counter (name VARCHAR(256) NOT NULL PRIMARY KEY,"
                    + " counter_value BIGINT NOT NULL)");
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert =
                        connection.prepareStatement("INSERT INTO fenced_counter (name, counter_value) VALUES (?, 0)")) {
            insert.setString(1, lockName);
            insert.executeUpdate();
        }
        return new FencedCounter(dataSource, lockName);
    }

    /** Increments the counter in a transaction fenced with {@code token}; false if the fence refused it. */
    boolean increment(long token) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE fenced_counter SET counter_value = counter_value + 1 WHERE name = ?")) {
                FencedTransaction.of(FenceTable.standard(), connection, lockName, token, null)
                        .begin();
                update.setString(1, lockName);
                update.executeUpdate();
                connection.commit();
                return true;
            } catch (FenceRefusedException refused) {
                connection.rollback();
                return false;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    long value() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT counter_value FROM fenced_counter WHERE name = ?")) {
            select.setString(1, lockName);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
