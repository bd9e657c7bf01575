package dev.fencedlock.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.jdbc.JdbcFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-row cost of a protected table on MariaDB: one fenced transaction (through
 * {@link JdbcFencing#inTransaction}) updates {@value #ROWS} rows in one statement, on a table
 * {@link FencedTables#protect protected} by the database ({@code mode=protected}: a row trigger
 * calls the fence's procedure, which locks the fence row and compares the token, for every row) or
 * not ({@code mode=unprotected}). The score is per row written (average time), so the commit and
 * the guard, the same in both modes, are spread over the rows; the difference of the two modes is
 * the trigger's cost per row. Uses a database of its own ({@link BenchEnv#mariadbUrl()}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Thread)
public class ProtectedRowsBenchmark {
    static final int ROWS = 500;

    @Param({"unprotected", "protected"})
    public String mode;

    private HikariDataSource dataSource;
    private LockClient locks;
    private Lease lease;

    @Setup(Level.Trial)
    public void open() throws Exception {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(BenchEnv.mariadbUrl());
        pool.setUsername(BenchEnv.mariadbUser());
        pool.setMaximumPoolSize(2);
        pool.setPoolName("bench-protected-rows");
        dataSource = new HikariDataSource(pool);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists fencedlock_fence");
            statement.execute("drop table if exists bench_rows");
            statement.execute(JdbcTransactionBenchmark.migration());
            statement.execute("create table bench_rows (id bigint primary key, counter_value bigint not null)");
            try (PreparedStatement insert = connection.prepareStatement("insert into bench_rows values (?, 0)")) {
                for (int id = 1; id <= ROWS; id++) {
                    insert.setLong(1, id);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        }
        if (mode.equals("protected")) {
            FencedTables.protect(dataSource, "bench_rows");
        }
        locks = LockClient.create(LockConfig.builder().backend("local").build());
        lease = locks.lock("bench:rows").acquire(Duration.ofSeconds(5), Duration.ofHours(1));
    }

    @TearDown(Level.Trial)
    public void close() {
        lease.close();
        locks.close();
        dataSource.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int updateEveryRow() throws SQLException {
        int changed = JdbcFencing.inTransaction(dataSource, lease, connection -> {
            try (Statement statement = connection.createStatement()) {
                return statement.executeUpdate("update bench_rows set counter_value = counter_value + 1");
            }
        });
        if (changed != ROWS) {
            throw new IllegalStateException("updated " + changed + " rows, expected " + ROWS);
        }
        return changed;
    }
}
