package dev.fencedlock.testkit.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.testkit.net.FreePorts;
import dev.fencedlock.testkit.net.TcpProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.tools.Server;

/**
 * A private schema on one of the test databases with a connection pool on it. Every instance gets
 * a schema (a database on MariaDB, an in-memory database on H2) with a random name, so that test
 * classes, modules and parallel builds never share tables; {@link #close()} drops it.
 *
 * <p>Connection settings can be overridden with system properties {@code fencedlock.test.<db>.url},
 * {@code .user} and {@code .password}, where {@code <db>} is {@code postgresql} or {@code mariadb};
 * the defaults are the local servers CI runs ({@code 127.0.0.1:5432/test} as {@code postgres},
 * {@code 127.0.0.1:3306/test} as {@code root}). A database that cannot be reached fails the test:
 * a skipped database is not a passed one.
 *
 * <p>The MariaDB pool's connections count their round trips for {@link MariaDbRoundTrips}.
 *
 * <p>Thread-safety: the pool may be used from any thread; {@link #close()} once, after the test.
 */
public final class TestDatabase implements AutoCloseable {

    /** The databases every fenced write path is tested on. */
    public enum Kind {
        H2,
        POSTGRESQL,
        MARIADB
    }

    /** How long an H2 statement waits for a row lock; tests that block on one must finish sooner. */
    public static final int H2_LOCK_TIMEOUT_MILLIS = 10_000;

    /** The server's host and port in a JDBC URL: {@code //host:port/}. */
    private static final Pattern SERVER_IN_URL = Pattern.compile("//([^/:]+):(\\d+)/");

    private final Kind kind;
    private final String schema;
    private final String adminUrl;
    private final String user;
    private final String password;
    private final Server h2Server;
    private final HikariDataSource dataSource;

    private TestDatabase(Kind kind, String prefix, int poolSize, boolean shared) throws SQLException {
        this.kind = kind;
        this.h2Server = kind == Kind.H2 && shared ? startH2Server() : null;
        this.schema =
                prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String keys = "fencedlock.test." + kind.name().toLowerCase(Locale.ROOT) + ".";
        switch (kind) {
            case H2 -> {
                adminUrl = null;
                user = "sa";
                password = "";
            }
            case POSTGRESQL -> {
                adminUrl = System.getProperty(keys + "url", "jdbc:postgresql://127.0.0.1:5432/test");
                user = System.getProperty(keys + "user", "postgres");
                password = System.getProperty(keys + "password", "");
            }
            case MARIADB -> {
                adminUrl = System.getProperty(keys + "url", "jdbc:mariadb://127.0.0.1:3306/test");
                user = System.getProperty(keys + "user", "root");
                password = System.getProperty(keys + "password", "");
            }
            default -> throw new IllegalArgumentException("kind: " + kind);
        }
        createSchema();
        this.dataSource = pool(poolSize);
    }

    /** A new private schema on {@code kind} with a pool of 8 connections. */
    public static TestDatabase create(Kind kind) {
        return create(kind, "fl", 8);
    }

    /**
     * A new private schema on {@code kind}.
     *
     * @param prefix start of the schema name, letters and digits, to tell whose schema a leftover is
     * @param poolSize maximum connections of the pool
     * @throws IllegalStateException if the database cannot be reached or the schema not created
     */
    public static TestDatabase create(Kind kind, String prefix, int poolSize) {
        return create(kind, prefix, poolSize, false);
    }

    /**
     * As {@link #create(Kind, String, int)}, for tests whose other processes must reach the same
     * rows through {@link #jdbcUrl()}: on H2 the in-memory database is served by an H2 TCP server on
     * loopback, stopped by {@link #close()}. PostgreSQL and MariaDB schemas are reachable anyway.
     */
    public static TestDatabase createShared(Kind kind, String prefix, int poolSize) {
        return create(kind, prefix, poolSize, true);
    }

    private static TestDatabase create(Kind kind, String prefix, int poolSize, boolean shared) {
        if (!prefix.matches("[a-z][a-z0-9]{0,15}")) {
            throw new IllegalArgumentException(
                    "prefix must be 1-16 lower-case letters or digits, got '" + prefix + "'");
        }
        try {
            return new TestDatabase(kind, prefix, poolSize, shared);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot prepare a test schema on " + kind + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs the Flyway migrations at {@code locations} (e.g. {@code classpath:db/fencedlock/migration})
     * on this schema, with {@link #placeholders()} available to them.
     */
    public TestDatabase migrate(String... locations) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(locations)
                .placeholders(placeholders())
                .load()
                .migrate();
        return this;
    }

    public Kind kind() {
        return kind;
    }

    /** The schema's (or database's) name. */
    public String schema() {
        return schema;
    }

    /** The pool on this schema. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** A JDBC URL that opens connections on this schema, for a separate pool or another process. */
    public String jdbcUrl() {
        return dataSource.getJdbcUrl();
    }

    /**
     * A proxy on loopback in front of this database's server, for tests that cut, stall or slow the
     * link (see {@link TcpProxy}); reach the schema through it with {@link #jdbcUrlThrough}. The
     * caller closes it.
     *
     * @throws IllegalStateException for an H2 database in this JVM's memory, which has no server
     */
    public TcpProxy proxy() {
        Matcher server = SERVER_IN_URL.matcher(jdbcUrl());
        if (!server.find()) {
            throw new IllegalStateException("no database server to put a proxy in front of: " + jdbcUrl());
        }
        return TcpProxy.start(server.group(1), Integer.parseInt(server.group(2)));
    }

    /** {@link #jdbcUrl()} with the server's port replaced by {@code proxy}'s. */
    public String jdbcUrlThrough(TcpProxy proxy) {
        return SERVER_IN_URL.matcher(jdbcUrl()).replaceFirst("//$1:" + proxy.port() + "/");
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** A pooled connection, autocommit on. */
    public Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    /** Runs one statement in its own committed transaction and returns the update count. */
    public int execute(String sql, Object... parameters) {
        try (Connection connection = connection();
                PreparedStatement statement = prepare(connection, sql, parameters)) {
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long column of one row, or null if there is no such row. */
    public Long queryLong(String sql, Object... parameters) {
        try (Connection connection = connection();
                PreparedStatement statement = prepare(connection, sql, parameters);
                ResultSet rows = statement.executeQuery()) {
            return rows.next() ? rows.getLong(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
        return statement;
    }

    /**
     * What migrations write differently per database: {@code lock_name_type} (a VARCHAR(256) that
     * compares exactly, binary no-pad on MariaDB) and {@code identity_column}.
     */
    public Map<String, String> placeholders() {
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

    /** Closes the pool and drops the schema. */
    @Override
    public void close() {
        try {
            dataSource.close();
        } finally {
            dropSchema();
        }
    }

    private HikariDataSource pool(int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(schema);
        config.setJdbcUrl(
                switch (kind) {
                    case H2 -> h2Url() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + H2_LOCK_TIMEOUT_MILLIS;
                    case POSTGRESQL -> adminUrl + (adminUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
                    case MARIADB -> adminUrl.replaceFirst("/[^/?]*(\\?|$)", "/" + schema + "$1");
                });
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        if (kind == Kind.MARIADB) {
            // a driver property, not part of jdbcUrl(): other processes need not have the class
            config.addDataSourceProperty("socketFactory", MariaDbRoundTrips.SOCKET_FACTORY);
        }
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
                    try (Connection connection = DriverManager.getConnection(h2Url(), user, password);
                            Statement statement = connection.createStatement()) {
                        statement.execute("SHUTDOWN");
                    } finally {
                        if (h2Server != null) {
                            h2Server.stop();
                        }
                    }
                }
                case POSTGRESQL -> admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                case MARIADB -> admin("DROP DATABASE IF EXISTS " + schema);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot drop test schema " + schema + " on " + kind, e);
        }
    }

    private String h2Url() {
        return h2Server == null
                ? "jdbc:h2:mem:" + schema
                : "jdbc:h2:tcp://127.0.0.1:" + h2Server.getPort() + "/mem:" + schema;
    }

    private static Server startH2Server() throws SQLException {
        return Server.createTcpServer("-tcpPort", Integer.toString(FreePorts.loopback()), "-ifNotExists")
                .start();
    }

    private void admin(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(adminUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
