package dev.fencedlock.faults.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.faults.history.CommittedWrite;
import dev.fencedlock.faults.history.CounterState;
import jakarta.persistence.EntityManagerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.tools.Server;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;

/**
 * The database the counters of a run live in, shared by every client process of the run.
 *
 * <p>{@link #create()} makes a private one for a test class: a schema with a random name on the
 * local PostgreSQL (the default), or an in-memory H2 database behind an H2 TCP server on loopback
 * when the system property {@code faults.database} is {@code h2}. Either way separate JVMs reach the
 * same rows. PostgreSQL is found at {@code faults.postgresql.url} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/test}) as {@code faults.postgresql.user} (default {@code
 * postgres}) with {@code faults.postgresql.password} (default none). A database that cannot be
 * reached fails the test: a skipped database is not a passed one. {@link #close()} drops what
 * {@code create} made.
 *
 * <p>{@link #connect} joins a database another process created. Thread-safe.
 */
public final class FaultDatabase implements AutoCloseable {
    private final DatabaseSettings settings;
    private final HikariDataSource dataSource;
    private final EntityManagerFactory factory;
    private final Runnable dropOnClose;

    private FaultDatabase(DatabaseSettings settings, boolean migrate, Runnable dropOnClose) {
        this.settings = settings;
        this.dropOnClose = dropOnClose;
        this.dataSource = pool(settings);
        try {
            if (migrate) {
                Flyway.configure()
                        .dataSource(dataSource)
                        .locations("classpath:db/faults")
                        .load()
                        .migrate();
            }
            this.factory = new HibernatePersistenceConfiguration("faults")
                    .managedClasses(Counter.class, CounterLogEntry.class)
                    .property("jakarta.persistence.nonJtaDataSource", dataSource)
                    .schemaToolingAction(Action.VALIDATE)
                    .createEntityManagerFactory();
        } catch (RuntimeException e) {
            dataSource.close();
            dropOnClose.run();
            throw e;
        }
    }

    /** A private, migrated database for one test class; see the class description. */
    public static FaultDatabase create() {
        String kind = System.getProperty("faults.database", "postgresql").toLowerCase(Locale.ROOT);
        String name = "faults_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return switch (kind) {
            case "postgresql" -> createOnPostgreSql(name);
            case "h2" -> createOnH2(name);
            default ->
                throw new IllegalArgumentException("faults.database must be postgresql or h2, got '" + kind + "'");
        };
    }

    /** Joins a database created by another process; closing it leaves the database alone. */
    public static FaultDatabase connect(DatabaseSettings settings) {
        return new FaultDatabase(settings, false, () -> {});
    }

    private static FaultDatabase createOnPostgreSql(String schema) {
        String url = System.getProperty("faults.postgresql.url", "jdbc:postgresql://127.0.0.1:5432/test");
        String user = System.getProperty("faults.postgresql.user", "postgres");
        String password = System.getProperty("faults.postgresql.password", "");
        DatabaseSettings admin = new DatabaseSettings(url, user, password);
        execute(admin, "CREATE SCHEMA " + schema);
        DatabaseSettings settings =
                new DatabaseSettings(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema, user, password);
        return new FaultDatabase(settings, true, () -> execute(admin, "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    }

    private static FaultDatabase createOnH2(String name) {
        Server server;
        try {
            server = Server.createTcpServer("-tcpPort", Integer.toString(freePort()), "-ifNotExists")
                    .start();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot start an H2 TCP server: " + e.getMessage(), e);
        }
        DatabaseSettings settings = new DatabaseSettings(
                "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + name
                        + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
                "sa",
                "");
        return new FaultDatabase(settings, true, server::stop);
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static HikariDataSource pool(DatabaseSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.jdbcUrl());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(8);
        config.setPoolName("faults");
        return new HikariDataSource(config);
    }

    private static void execute(DatabaseSettings settings, String sql) {
        try (Connection connection =
                        DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("'" + sql + "' failed on " + settings + ": " + e.getMessage(), e);
        }
    }

    public DatabaseSettings settings() {
        return settings;
    }

    public EntityManagerFactory entityManagerFactory() {
        return factory;
    }

    /** Plain JDBC connections, for the unfenced control counters and for reading results. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Adds a counter row with {@code value} and fence 0. */
    public void createCounter(String name, long value) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO fault_counter (name, counter_value, fence) VALUES (?, ?, 0)")) {
            insert.setString(1, name);
            insert.setLong(2, value);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create counter '" + name + "': " + e.getMessage(), e);
        }
    }

    /** The counter's value now and its whole commit log, for the checker. */
    public CounterState counterState(String name, long initialValue) {
        try (Connection connection = dataSource.getConnection()) {
            long value;
            try (PreparedStatement read =
                    connection.prepareStatement("SELECT counter_value FROM fault_counter WHERE name = ?")) {
                read.setString(1, name);
                try (ResultSet rows = read.executeQuery()) {
                    if (!rows.next()) {
                        throw new IllegalStateException("no counter '" + name + "'");
                    }
                    value = rows.getLong(1);
                }
            }
            List<CommittedWrite> log = new ArrayList<>();
            try (PreparedStatement read = connection.prepareStatement(
                    "SELECT attempt, token, counter_value, id FROM fault_counter_log WHERE counter_name = ?")) {
                read.setString(1, name);
                try (ResultSet rows = read.executeQuery()) {
                    while (rows.next()) {
                        log.add(new CommittedWrite(
                                rows.getString(1), rows.getLong(2), rows.getLong(3), rows.getLong(4)));
                    }
                }
            }
            return new CounterState(name, initialValue, value, log);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read counter '" + name + "': " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            dataSource.close();
            dropOnClose.run();
        }
    }
}
