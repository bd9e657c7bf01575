package dev.fencedlock.faults.db;

import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.WriteOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The control: the same read-modify-write increment as {@link FencedIncrement}, with plain SQL and
 * no fence. Run beside the fenced one in the same critical sections, it shows what the lock alone
 * would have let happen. Confined to one thread.
 */
public final class UnfencedIncrement {
    private final DataSource dataSource;
    private final String counterName;
    private final long read;

    private UnfencedIncrement(DataSource dataSource, String counterName, long read) {
        this.dataSource = dataSource;
        this.counterName = counterName;
        this.read = read;
    }

    /** Reads the counter (in a transaction of its own, as a separate read would). */
    public static UnfencedIncrement begin(DataSource dataSource, String counterName) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT counter_value FROM fault_counter WHERE name = ?")) {
            select.setString(1, counterName);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new IllegalStateException("no counter '" + counterName + "'");
                }
                return new UnfencedIncrement(dataSource, counterName, rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read counter '" + counterName + "': " + e.getMessage(), e);
        }
    }

    public long readValue() {
        return read;
    }

    /** Writes {@code readValue() + 1} with a commit-log row; a failed commit is {@link WriteOutcome#UNKNOWN}. */
    public FencedWrite commit(String client, String attempt, long token, LongSupplier atNanos) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement update =
                            connection.prepareStatement("UPDATE fault_counter SET counter_value = ? WHERE name = ?");
                    PreparedStatement log = connection.prepareStatement("INSERT INTO fault_counter_log"
                            + " (counter_name, attempt, token, counter_value) VALUES (?, ?, ?, ?)")) {
                update.setLong(1, read + 1);
                update.setString(2, counterName);
                update.executeUpdate();
                log.setString(1, counterName);
                log.setString(2, attempt);
                log.setLong(3, token);
                log.setLong(4, read + 1);
                log.executeUpdate();
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            }
            return new FencedWrite(counterName, client, attempt, token, WriteOutcome.OK, "", atNanos.getAsLong());
        } catch (SQLException e) {
            return new FencedWrite(
                    counterName, client, attempt, token, WriteOutcome.UNKNOWN, e.getMessage(), atNanos.getAsLong());
        }
    }
}
