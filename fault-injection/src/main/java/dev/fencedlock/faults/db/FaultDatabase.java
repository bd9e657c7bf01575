package dev.fencedlock.faults.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.faults.history.CommittedWrite;
import dev.fencedlock.faults.history.CounterState;
import dev.fencedlock.testkit.db.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;

/**
 * The database the counters of a run live in, shared by every client process of the run.
 *
 * <p>{@link #create()} makes a private one for a test class: a {@link TestDatabase} schema with a
 * random name on the local PostgreSQL (the default), or an in-memory H2 database behind an H2 TCP
 * server on loopback when the system property {@code faults.database} is {@code h2}. Either way
 * separate JVMs reach the same rows. PostgreSQL is found as {@link TestDatabase} says (system
 * properties {@code fencedlock.test.postgresql.url}, {@code .user}, {@code .password}). A database
 * that cannot be reached fails the test: a skipped database is not a passed one. {@link #close()}
 * drops what {@code create} made.
 *
 * <p>{@link #connect} joins a database another process created. Thread-safe.
 */
public final class FaultDatabase implements AutoCloseable {
    private final DatabaseSettings settings;
    private final DataSource dataSource;
    private final EntityManagerFactory factory;
    private final AutoCloseable owned;

    /** @param owned the pool or schema behind {@code dataSource}, closed with this database */
    private FaultDatabase(DatabaseSettings settings, DataSource dataSource, AutoCloseable owned) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.owned = owned;
        try {
            this.factory = new HibernatePersistenceConfiguration("faults")
                    .managedClasses(Counter.class, CounterLogEntry.class)
                    .property("jakarta.persistence.nonJtaDataSource", dataSource)
                    .schemaToolingAction(Action.VALIDATE)
                    .createEntityManagerFactory();
        } catch (RuntimeException e) {
            closeQuietly(owned, e);
            throw e;
        }
    }

    /** A private, migrated database for one test class; see the class description. */
    public static FaultDatabase create() {
        String kind = System.getProperty("faults.database", "postgresql").toLowerCase(Locale.ROOT);
        TestDatabase.Kind database = switch (kind) {
            case "postgresql" -> TestDatabase.Kind.POSTGRESQL;
            case "h2" -> TestDatabase.Kind.H2;
            default ->
                throw new IllegalArgumentException("faults.database must be postgresql or h2, got '" + kind + "'");
        };
        return create(database);
    }

    /**
     * A private, migrated database on {@code kind} (H2, PostgreSQL or MariaDB), for tests that run
     * in this JVM on each kind in turn; other processes can join it as {@link #create()} says.
     */
    public static FaultDatabase create(TestDatabase.Kind kind) {
        TestDatabase schema = TestDatabase.createShared(kind, "faults", 8);
        try {
            schema.migrate("classpath:db/faults");
            // fencing-jdbc's fence row, with its own history: its V1 and ours would clash in one
            Flyway.configure()
                    .dataSource(schema.dataSource())
                    .locations("classpath:db/fencedlock/migration")
                    .placeholders(schema.placeholders())
                    .table("fencedlock_schema_history")
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load()
                    .migrate();
        } catch (RuntimeException e) {
            closeQuietly(schema, e);
            throw e;
        }
        return new FaultDatabase(
                new DatabaseSettings(schema.jdbcUrl(), schema.user(), schema.password()), schema.dataSource(), schema);
    }

    /** Joins a database created by another process; closing it leaves the database alone. */
    public static FaultDatabase connect(DatabaseSettings settings) {
        HikariDataSource pool = pool(settings);
        return new FaultDatabase(settings, pool, pool);
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

    private static void closeQuietly(AutoCloseable closeable, RuntimeException failure) {
        try {
            closeable.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
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

    /**
     * How many sessions are blocked now on a lock of the fence table ({@code fencedlock_fence} of
     * this database's schema), waiting for another transaction to end: on PostgreSQL, sessions with
     * {@code pg_stat_activity.wait_event_type = 'Lock'} that hold a lock on the table and wait for
     * one not granted in {@code pg_locks}; on H2, sessions with a {@code BLOCKER_ID} whose statement
     * writes the table. A snapshot, for tests that wait until a fence guard is blocked.
     *
     * @throws IllegalStateException on another database, or if the query fails
     */
    public int sessionsWaitingOnFenceRow() {
        try (Connection connection = dataSource.getConnection()) {
            String product = connection.getMetaData().getDatabaseProductName();
            String sql = switch (product) {
                case "PostgreSQL" ->
                    "SELECT count(*) FROM pg_stat_activity a WHERE a.wait_event_type = 'Lock'"
                            + " AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted"
                            + " AND l.relation = to_regclass('fencedlock_fence'))"
                            + " AND EXISTS (SELECT 1 FROM pg_locks w WHERE w.pid = a.pid AND NOT w.granted)";
                case "H2" ->
                    "SELECT count(*) FROM information_schema.sessions WHERE blocker_id IS NOT NULL"
                            + " AND lower(executing_statement) LIKE '%fencedlock_fence%'";
                default -> throw new IllegalStateException("cannot see lock waits on " + product);
            };
            try (PreparedStatement query = connection.prepareStatement(sql);
                    ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the lock waits of " + settings + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            try {
                owned.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot close the fault database " + settings + ": " + e, e);
            }
        }
    }
}
