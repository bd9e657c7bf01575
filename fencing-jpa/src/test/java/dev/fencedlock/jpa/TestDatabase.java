package dev.fencedlock.jpa;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;

/**
 * A private schema on one of the test databases, migrated with the module's Flyway scripts, with a
 * connection pool and an EntityManagerFactory on it. Every instance gets a schema (a database on
 * MariaDB, an in-memory database on H2) with a random name, so that test classes and parallel
 * builds never share tables; {@link #close()} drops it.
 *
 * <p>Connection settings can be overridden with system properties {@code fencedlock.test.<db>.url},
 * {@code .user} and {@code .password}, where {@code <db>} is {@code postgresql} or {@code mariadb}.
 * A database that cannot be reached fails the test class: a skipped database is not a passed one.
 */
final class TestDatabase implements AutoCloseable {
    enum Kind {
        H2,
        POSTGRESQL,
        MARIADB
    }

    /** How long an H2 statement waits for a row lock; tests that block on one must finish sooner. */
    static final int H2_LOCK_TIMEOUT_MILLIS = 10_000;

    private final Kind kind;
    private final String schema;
    private final String adminUrl;
    private final String user;
    private final String password;
    private final HikariDataSource dataSource;
    private final EntityManagerFactory factory;

    private TestDatabase(Kind kind, Map<String, Object> properties) throws SQLException {
        this.kind = kind;
        this.schema = "fjpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String prefix = "fencedlock.test." + kind.name().toLowerCase(Locale.ROOT) + ".";
        switch (kind) {
            case H2 -> {
                adminUrl = null;
                user = "sa";
                password = "";
            }
            case POSTGRESQL -> {
                adminUrl = System.getProperty(prefix + "url", "jdbc:postgresql://127.0.0.1:5432/test");
                user = System.getProperty(prefix + "user", "postgres");
                password = System.getProperty(prefix + "password", "");
            }
            case MARIADB -> {
                adminUrl = System.getProperty(prefix + "url", "jdbc:mariadb://127.0.0.1:3306/test");
                user = System.getProperty(prefix + "user", "root");
                password = System.getProperty(prefix + "password", "");
            }
            default -> throw new IllegalArgumentException("kind: " + kind);
        }
        createSchema();
        this.dataSource = pool();
        try {
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/fencing")
                    .placeholders(placeholders(kind))
                    .load()
                    .migrate();
            HibernatePersistenceConfiguration configuration = new HibernatePersistenceConfiguration("fencing-" + schema)
                    .managedClasses(Item.class, VersionedItem.class, LegacyStock.class, LogEntry.class)
                    .property("jakarta.persistence.nonJtaDataSource", dataSource)
                    // batching on, so that the tests show fenced statements are still refused one by one
                    .property("hibernate.jdbc.batch_size", 16)
                    .schemaToolingAction(Action.VALIDATE);
            properties.forEach(configuration::property);
            this.factory = configuration.createEntityManagerFactory();
        } catch (RuntimeException e) {
            dataSource.close();
            dropSchema();
            throw e;
        }
    }

    static TestDatabase open(Kind kind) {
        return open(kind, Map.of());
    }

    /** With {@code properties} added to the persistence unit's. */
    static TestDatabase open(Kind kind, Map<String, Object> properties) {
        try {
            return new TestDatabase(kind, properties);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot prepare a test schema on " + kind + ": " + e.getMessage(), e);
        }
    }

    Kind kind() {
        return kind;
    }

    EntityManagerFactory factory() {
        return factory;
    }

    /** A connection outside Hibernate, autocommit on, for plain JDBC reads and writes. */
    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    /** Runs one statement in its own committed transaction and returns the update count. */
    int execute(String sql, Object... parameters) {
        try (Connection connection = connection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long column of one row, or null if there is no such row. */
    Long queryLong(String sql, Object... parameters) {
        try (Connection connection = connection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            dataSource.close();
            dropSchema();
        }
    }

    /** What the migrations write differently per database. */
    private static Map<String, String> placeholders(Kind kind) {
        return switch (kind) {
            case H2, POSTGRESQL ->
                Map.of(
                        "lock_name_type", "VARCHAR(256)",
                        "identity_column", "BIGINT GENERATED BY DEFAULT AS IDENTITY");
            case MARIADB ->
                Map.of(
                        "lock_name_type", "VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
                        "identity_column", "BIGINT NOT NULL AUTO_INCREMENT");
        };
    }

    private HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setPoolName(schema);
        config.setJdbcUrl(
                switch (kind) {
                    case H2 -> "jdbc:h2:mem:" + schema + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + H2_LOCK_TIMEOUT_MILLIS;
                    case POSTGRESQL -> adminUrl + (adminUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
                    case MARIADB -> adminUrl.replaceFirst("/[^/?]*(\\?|$)", "/" + schema + "$1");
                });
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    private void createSchema() throws SQLException {
        switch (kind) {
            case H2 -> {}
            case POSTGRESQL -> admin("CREATE SCHEMA " + schema);
            case MARIADB -> admin("CREATE DATABASE " + schema);
        }
    }

    private void dropSchema() {
        try {
            switch (kind) {
                case H2 -> {
                    try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:" + schema, user, password);
                            Statement statement = connection.createStatement()) {
                        statement.execute("SHUTDOWN");
                    }
                }
                case POSTGRESQL -> admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                case MARIADB -> admin("DROP DATABASE IF EXISTS " + schema);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot drop test schema " + schema + " on " + kind, e);
        }
    }

    private void admin(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(adminUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
