package dev.fencedlock.examples.inventory;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * The example's database: a HikariCP pool, the Flyway-managed schema and a Hibernate
 * EntityManagerFactory over it. Thread-safe; close it once at the end of the run.
 */
final class InventoryDatabase implements AutoCloseable {
    /** The schema of the example's tables when the URL names none with {@code currentSchema=}. */
    static final String DEFAULT_SCHEMA = "fencedlock_inventory";

    private static final Pattern CURRENT_SCHEMA = Pattern.compile("[?&;]currentSchema=([^&;]*)");

    private final HikariDataSource dataSource;
    private final EntityManagerFactory entityManagerFactory;

    private InventoryDatabase(HikariDataSource dataSource, EntityManagerFactory entityManagerFactory) {
        this.dataSource = dataSource;
        this.entityManagerFactory = entityManagerFactory;
    }

    /**
     * Connects, applies the migrations when {@code migrate} is set (the coordinator does; worker
     * processes find the schema in place) and opens the EntityManagerFactory.
     */
    static InventoryDatabase open(String jdbcUrl, String user, String password, int poolSize, boolean migrate)
            throws SQLException {
        String schema = schemaOf(jdbcUrl);
        if (migrate) {
            createSchema(jdbcUrl, user, password, schema);
        }
        HikariConfig pool = new HikariConfig();
        pool.setSchema(schema);
        pool.setJdbcUrl(jdbcUrl);
        pool.setUsername(user);
        pool.setPassword(password);
        pool.setMaximumPoolSize(poolSize);
        pool.setPoolName("inventory");
        HikariDataSource dataSource = new HikariDataSource(pool);
        try {
            if (migrate) {
                Flyway.configure()
                        .dataSource(dataSource)
                        .locations("classpath:db/inventory")
                        .schemas(schema)
                        .load()
                        .migrate();
                // fencing-jdbc's fence row, with its own history: its V1 and ours would clash in one
                Flyway.configure()
                        .dataSource(dataSource)
                        .locations("classpath:db/fencedlock/migration")
                        .schemas(schema)
                        .table("fencedlock_schema_history")
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .load()
                        .migrate();
                // the jdbc backend's lock table, for --backend jdbc, with a history of its own too
                Flyway.configure()
                        .dataSource(dataSource)
                        .locations(JdbcLockSettings.MIGRATION_LOCATION)
                        .schemas(schema)
                        .table("fencedlock_lock_schema_history")
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .load()
                        .migrate();
            }
            EntityManagerFactory factory = new HibernatePersistenceConfiguration("inventory")
                    .managedClasses(InventoryItem.class, OrderRecord.class)
                    .property("jakarta.persistence.nonJtaDataSource", dataSource)
                    .createEntityManagerFactory();
            return new InventoryDatabase(dataSource, factory);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    /**
     * The example keeps its tables in a schema of their own, so that it can share a database (the
     * machine's PostgreSQL, say) with other applications and their migration histories.
     */
    private static void createSchema(String jdbcUrl, String user, String password, String schema) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"");
        }
    }

    /**
     * The schema {@code jdbcUrl} names with {@code currentSchema=} (PostgreSQL's parameter, also
     * read for the others), else {@link #DEFAULT_SCHEMA}.
     *
     * @throws IllegalArgumentException if the named schema is empty or not a plain identifier
     */
    static String schemaOf(String jdbcUrl) {
        Matcher named = CURRENT_SCHEMA.matcher(jdbcUrl);
        if (!named.find()) {
            return DEFAULT_SCHEMA;
        }
        String schema = named.group(1);
        if (!schema.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException(
                    "currentSchema in --jdbc-url must be one plain identifier (letters, digits, _), got '" + schema
                            + "'");
        }
        return schema;
    }

    DataSource dataSource() {
        return dataSource;
    }

    EntityManagerFactory entityManagerFactory() {
        return entityManagerFactory;
    }

    /** Replaces all stock and orders with {@code skus} SKUs of {@code stockPerSku} units each. */
    void reset(int skus, int stockPerSku) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("DELETE FROM orders");
                statement.executeUpdate("DELETE FROM inventory");
            }
            try (PreparedStatement insert =
                    connection.prepareStatement("INSERT INTO inventory (sku, quantity, fence) VALUES (?, ?, 0)")) {
                for (int i = 0; i < skus; i++) {
                    insert.setString(1, skuName(i));
                    insert.setInt(2, stockPerSku);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            connection.commit();
        }
    }

    static String skuName(int index) {
        return "sku-" + (index + 1);
    }

    /** The fence value the row of {@code sku} holds now, as committed. */
    long fence(String sku) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT fence FROM inventory WHERE sku = ?")) {
            query.setString(1, sku);
            try (ResultSet row = query.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("No stock row for " + sku);
                }
                return row.getLong(1);
            }
        }
    }

    /**
     * Reads a stock row through Hibernate in a transaction of its own, unfenced, so that the
     * process's first sale does not pay for Hibernate's first session and statements. The broken-lock
     * order needs that: its newer holder's sale must commit before the backend notices the broken
     * grant (ZooKeeper checks a fixed lease's node about every two seconds with its default session
     * timeout), and a cold first transaction took 1.4 to 1.8 s on a loaded machine.
     */
    void warmUp() {
        EntityManager entityManager = entityManagerFactory.createEntityManager();
        try {
            entityManager.getTransaction().begin();
            entityManager.find(InventoryItem.class, skuName(0));
            entityManager.getTransaction().commit();
        } finally {
            entityManager.close();
        }
    }

    /** Every committed order, as the database holds them now. */
    List<OrderKey> orderKeys() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT sku, token FROM orders")) {
            List<OrderKey> orders = new ArrayList<>();
            while (rows.next()) {
                orders.add(new OrderKey(rows.getString(1), rows.getLong(2)));
            }
            return orders;
        }
    }

    /** Stock and orders as the database holds them now. */
    Snapshot snapshot() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            long remaining;
            int minimum;
            try (ResultSet rows = statement.executeQuery(
                    "SELECT COALESCE(SUM(quantity), 0), COALESCE(MIN(quantity), 0) FROM inventory")) {
                rows.next();
                remaining = rows.getLong(1);
                minimum = rows.getInt(2);
            }
            long orders;
            try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
                rows.next();
                orders = rows.getLong(1);
            }
            long ordersWithoutStock;
            try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM orders o WHERE NOT EXISTS"
                    + " (SELECT 1 FROM inventory i WHERE i.sku = o.sku)")) {
                rows.next();
                ordersWithoutStock = rows.getLong(1);
            }
            return new Snapshot(remaining, minimum, orders, ordersWithoutStock);
        }
    }

    /**
     * @param remaining units left over all SKUs
     * @param lowestQuantity the smallest quantity of any SKU; negative would mean oversold
     * @param orders order rows recorded
     * @param ordersForUnknownSkus order rows whose SKU has no stock row (should be none)
     */
    record Snapshot(long remaining, int lowestQuantity, long orders, long ordersForUnknownSkus) {}

    @Override
    public void close() {
        try {
            entityManagerFactory.close();
        } finally {
            dataSource.close();
        }
    }
}
