package dev.fencedlock.examples.inventory;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.JdbcFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;

/**
 * The shipping service's own database: an in-memory H2 inside the service's process, holding the
 * shipments and fencing-jdbc's fence table, both created by Flyway when the service starts. The
 * fence table is this service's register of tokens: one row per lock, the largest token a shipment
 * was accepted under. Thread-safe; close it once when the service stops.
 */
final class ShippingDatabase implements AutoCloseable {
    private final HikariDataSource dataSource;

    private ShippingDatabase(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Creates the database and its tables. Waits for a lock's fence row are bounded by {@code
     * bound}: on H2 that is the session's {@code LOCK_TIMEOUT}, set here on the URL.
     */
    static ShippingDatabase open(int poolSize, Duration bound) {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(
                "jdbc:h2:mem:shipping-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + bound.toMillis());
        pool.setMaximumPoolSize(poolSize);
        pool.setPoolName("shipping");
        HikariDataSource dataSource = new HikariDataSource(pool);
        try {
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/shipping")
                    .load()
                    .migrate();
            // fencing-jdbc's fence table, with a history of its own: its V1 and ours would clash in one
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/fencedlock/migration")
                    .table("fencedlock_schema_history")
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load()
                    .migrate();
            return new ShippingDatabase(dataSource);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    /**
     * Records the shipment of {@code order} in a transaction fenced by {@code presentedToken} for
     * {@code lockName}. An order already shipped is not shipped twice.
     *
     * @return true if the shipment was recorded now, false if the order had been shipped before
     * @throws FenceRefusedException if the fence row holds a newer token; nothing was written
     * @throws FenceRowBusyException if an older transaction of the lock held the row for the whole
     *     bound
     */
    boolean ship(String lockName, long presentedToken, Duration bound, OrderKey order) throws SQLException {
        return JdbcFencing.inTransaction(dataSource, lockName, presentedToken, bound, connection -> {
            if (shipped(connection, order)) {
                return false;
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO shipments" + " (sku, order_token, presented_token, shipped_at) VALUES (?, ?, ?, ?)")) {
                insert.setString(1, order.sku());
                insert.setLong(2, order.token());
                insert.setLong(3, presentedToken);
                insert.setTimestamp(4, Timestamp.from(Instant.now()));
                insert.executeUpdate();
            }
            return true;
        });
    }

    private static boolean shipped(Connection connection, OrderKey order) throws SQLException {
        try (PreparedStatement query =
                connection.prepareStatement("SELECT 1 FROM shipments WHERE sku = ? AND order_token = ?")) {
            query.setString(1, order.sku());
            query.setLong(2, order.token());
            try (ResultSet row = query.executeQuery()) {
                return row.next();
            }
        }
    }

    /** Every order shipped, as committed now. */
    List<OrderKey> shipments() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT sku, order_token FROM shipments");
                ResultSet rows = query.executeQuery()) {
            List<OrderKey> shipments = new ArrayList<>();
            while (rows.next()) {
                shipments.add(new OrderKey(rows.getString(1), rows.getLong(2)));
            }
            return shipments;
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
