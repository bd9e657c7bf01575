package dev.fencedlock.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.testkit.db.TestDatabase;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * An application's data behind the fence of {@code fencing-jdbc}: one row of stock whose last
 * writer is recorded by every fenced write. Owns its database.
 */
final class FencedStock implements AutoCloseable {
    private final TestDatabase database;

    FencedStock(TestDatabase.Kind kind) {
        this.database = TestDatabase.create(kind, "stale", 4).migrate("classpath:db/fencedlock/migration");
        database.execute("CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, written_by VARCHAR(64) NOT NULL)");
    }

    /** Writes {@code writer} as the last writer of {@code sku} in a transaction fenced by {@code lease}. */
    void write(Lease lease, String sku, String writer) throws SQLException {
        JdbcFencing.inTransaction(database.dataSource(), lease, connection -> {
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE stock SET written_by = ? WHERE sku = ?")) {
                update.setString(1, writer);
                update.setString(2, sku);
                if (update.executeUpdate() == 0) {
                    try (PreparedStatement insert =
                            connection.prepareStatement("INSERT INTO stock (sku, written_by) VALUES (?, ?)")) {
                        insert.setString(1, sku);
                        insert.setString(2, writer);
                        insert.executeUpdate();
                    }
                }
            }
            return null;
        });
    }

    /** Asserts that {@code write} is refused as the write of a stale holder: the one place that names the exception. */
    static void assertRefusedAsStale(ThrowingCallable write) {
        assertThatThrownBy(write)
                .isInstanceOfSatisfying(
                        FenceRefusedException.class,
                        refusal -> assertThat(refusal.reason())
                                .isEqualTo(FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED));
    }

    void assertWrittenBy(String sku, String writer) {
        assertThat(database.queryLong("SELECT COUNT(*) FROM stock WHERE sku = ? AND written_by = ?", sku, writer))
                .as("rows of %s written by %s", sku, writer)
                .isEqualTo(1L);
    }

    @Override
    public void close() {
        database.close();
    }
}
