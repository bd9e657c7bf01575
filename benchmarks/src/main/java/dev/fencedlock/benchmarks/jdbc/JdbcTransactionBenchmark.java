package dev.fencedlock.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.jdbc.JdbcFencing;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A plain-JDBC read-modify-write transaction on PostgreSQL, in-memory H2 or MariaDB (read a row, update it,
 * commit), fenced
 * through {@link JdbcFencing#inTransaction} or written the same way by hand without the fence. Both
 * take a pooled connection, switch autocommit off and back, and roll back on failure; the fenced one
 * adds the guard statement and the lease check. {@code mode=round-trip} is the unfenced transaction
 * with one more statement first ({@code select 1}): what one more round trip costs, the floor of any
 * guard that is a statement of its own. {@code mode=fenced-protected} is the fenced transaction on a
 * table {@link FencedTables#protect protected} by the database's trigger. The teardown checks that
 * every increment was committed.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Thread)
public class JdbcTransactionBenchmark {
    private static final long ROW = 1;

    @Param({"unfenced", "round-trip", "fenced", "fenced-protected"})
    public String mode;

    @Param({"postgresql", "h2", "mariadb"})
    public String database;

    private HikariDataSource dataSource;
    private LockClient locks;
    private Lease lease;
    private long updates;

    @Setup(Level.Trial)
    public void open() throws Exception {
        HikariConfig pool = new HikariConfig();
        switch (database) {
            case "postgresql" -> {
                pool.setJdbcUrl(BenchEnv.postgresUrl());
                pool.setUsername(BenchEnv.postgresUser());
            }
            case "h2" -> pool.setJdbcUrl("jdbc:h2:mem:bench-jdbc;DB_CLOSE_DELAY=-1");
            case "mariadb" -> {
                pool.setJdbcUrl(BenchEnv.mariadbUrl());
                pool.setUsername(BenchEnv.mariadbUser());
            }
            default ->
                throw new IllegalArgumentException(
                        "unknown database '" + database + "'; expected postgresql, h2 or mariadb");
        }
        pool.setMaximumPoolSize(2);
        pool.setPoolName("bench-jdbc");
        dataSource = new HikariDataSource(pool);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists fencedlock_fence");
            statement.execute("drop table if exists bench_counter");
            statement.execute(migration());
            statement.execute("create table bench_counter (id bigint primary key, counter_value bigint not null)");
            statement.execute("insert into bench_counter values (" + ROW + ", 0)");
        }
        if (mode.equals("fenced-protected")) {
            FencedTables.protect(dataSource, "bench_counter");
        }
        locks = LockClient.create(LockConfig.builder().backend("local").build());
        lease = locks.lock("bench:jdbc").acquire(Duration.ofSeconds(5), Duration.ofHours(1));
    }

    /** The fence table's DDL from fencing-jdbc's own migration, without its comments. */
    static String migration() throws IOException {
        try (InputStream in = JdbcTransactionBenchmark.class.getResourceAsStream(
                "/db/fencedlock/migration/V1__fencedlock_fence.sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "");
        }
    }

    @TearDown(Level.Trial)
    public void verifyAndClose() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select counter_value from bench_counter where id = " + ROW)) {
            rows.next();
            if (rows.getLong(1) != updates) {
                throw new IllegalStateException("lost updates: " + updates + " committed, row says " + rows.getLong(1));
            }
        } finally {
            lease.close();
            locks.close();
            dataSource.close();
        }
    }

    @Benchmark
    public long readModifyWrite() throws SQLException {
        long value = switch (mode) {
            case "fenced", "fenced-protected" ->
                JdbcFencing.inTransaction(dataSource, lease, JdbcTransactionBenchmark::increment);
            case "round-trip" -> unfenced(true);
            default -> unfenced(false);
        };
        updates++;
        return value;
    }

    private long unfenced(boolean extraRoundTrip) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (extraRoundTrip) {
                    selectOne(connection);
                }
                long value = increment(connection);
                connection.commit();
                return value;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private static void selectOne(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("select 1");
                ResultSet rows = statement.executeQuery()) {
            rows.next();
        }
    }

    private static long increment(Connection connection) throws SQLException {
        long value;
        try (PreparedStatement read =
                connection.prepareStatement("select counter_value from bench_counter where id = ?")) {
            read.setLong(1, ROW);
            try (ResultSet rows = read.executeQuery()) {
                rows.next();
                value = rows.getLong(1) + 1;
            }
        }
        try (PreparedStatement write =
                connection.prepareStatement("update bench_counter set counter_value = ? where id = ?")) {
            write.setLong(1, value);
            write.setLong(2, ROW);
            write.executeUpdate();
        }
        return value;
    }
}
