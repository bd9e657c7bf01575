package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JdbcFencing#inTransaction} on each database: what is committed, what is refused and rolled
 * back, and the connection left as it was in every case.
 */
class JdbcFencingIT {
    private static final AtomicLong IDS = new AtomicLong();
    private static final FenceDatabases databases = new FenceDatabases("fjtx");
    private static LockClient locks;

    @BeforeAll
    static void client() {
        locks = LockClient.create(LockConfig.builder().backend("local").build());
    }

    @AfterAll
    static void close() {
        try {
            databases.close();
        } finally {
            locks.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void commitsTheWorkAndRegistersTheToken(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        try (Lease lease = acquire("commit-" + id)) {
            long result = JdbcFencing.inTransaction(db.dataSource(), lease, c -> insertCounter(c, id, 7));

            assertThat(result).isEqualTo(1);
            assertThat(counter(db, id)).isEqualTo(7);
            assertThat(fenceToken(db, lease.lockName())).isEqualTo(lease.token());
            assertThat(activeConnections(db)).isZero();
        }
    }

    /**
     * A pool that hands out connections with autocommit off gets them back so, the work committed
     * (on MariaDB the commit also puts the session back, in one statement: the mark is gone).
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aConnectionHandedOutWithAutocommitOffIsCommittedAndStaysOff(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setUsername(db.user());
        config.setPassword(db.password());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config);
                Lease lease = acquire("autocommit-off-" + id)) {
            long result = JdbcFencing.inTransaction(pool, lease, c -> insertCounter(c, id, 7));

            assertThat(result).isEqualTo(1);
            assertThat(counter(db, id)).as("committed").isEqualTo(7);
            try (Connection connection = pool.getConnection()) {
                assertThat(connection.getAutoCommit()).isFalse();
                if (kind == Kind.MARIADB) {
                    try (PreparedStatement statement = connection.prepareStatement("select @fencedlock_fenced");
                            var rows = statement.executeQuery()) {
                        rows.next();
                        assertThat(rows.getString(1))
                                .as("the mark after the commit")
                                .isNull();
                    }
                }
                connection.rollback();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void refusesALowerTokenNamingLockAndBothTokensAndKeepsNothing(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "refuse-" + id;
        Lease grant = acquire(name);
        grant.close();
        // the older holder still believes its lease valid (it paused past it); the local backend
        // cannot keep two grants valid at once, so its belief is played by a fixed lease
        Lease older = new FixedLease(name, grant.token());
        try (Lease newer = acquire(name);
                Connection connection = db.connection()) {
            JdbcFencing.inTransaction(db.dataSource(), newer, c -> insertCounter(c, id, 1));

            AtomicBoolean ran = new AtomicBoolean();
            AtomicBoolean wrote = new AtomicBoolean();
            Throwable refusal = catchThrowable(() -> JdbcFencing.inTransaction(connection, older, c -> {
                ran.set(true);
                int rows = setCounter(c, id, 99);
                wrote.set(true);
                return rows;
            }));

            assertThat(refusal).isInstanceOf(FenceRefusedException.class);
            FenceRefusedException stale = (FenceRefusedException) refusal;
            assertThat(stale.lockName()).isEqualTo(name);
            assertThat(stale.token()).isEqualTo(older.token());
            assertThat(stale.newerToken()).hasValue(newer.token());
            assertThat(stale.getMessage()).contains(name, Long.toString(older.token()), Long.toString(newer.token()));
            // PostgreSQL sends the guard with the work's first statement: the refusal surfaces there
            assertThat(ran.get())
                    .as("the work starts only where the guard travels with its first statement")
                    .isEqualTo(kind == Kind.POSTGRESQL);
            assertThat(wrote)
                    .as("no statement of the work completes after a refusal")
                    .isFalse();
            assertThat(counter(db, id)).isEqualTo(1);
            assertThat(fenceToken(db, name)).isEqualTo(newer.token());
            assertRestored(connection);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void acceptsTransactionsOfTheSameLeaseOneAfterTheOther(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        try (Lease lease = acquire("again-" + id);
                Connection connection = db.connection()) {
            JdbcFencing.inTransaction(connection, lease, c -> insertCounter(c, id, 1));
            JdbcFencing.inTransaction(connection, lease, c -> setCounter(c, id, 2));
            JdbcFencing.inTransaction(db.dataSource(), lease, c -> setCounter(c, id, 3));

            assertThat(counter(db, id)).isEqualTo(3);
            assertThat(fenceToken(db, lease.lockName())).isEqualTo(lease.token());
            assertRestored(connection);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLeaseLostBeforeTheCommitKeepsNothing(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        Lease lease = acquire("lost-" + id);
        try (Connection connection = db.connection()) {
            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(connection, lease, c -> {
                insertCounter(c, id, 5);
                lease.close(); // the lease ends while the transaction is still open
                return null;
            }));

            assertThat(thrown)
                    .isInstanceOfSatisfying(
                            FenceRefusedException.class,
                            refused -> assertThat(refused.reason())
                                    .isEqualTo(FenceRefusedException.Reason.LEASE_NOT_VALID))
                    .hasMessageContaining(lease.lockName())
                    .hasMessageContaining("at commit");
            assertThat(counterRow(db, id)).as("nothing kept").isNull();
            assertThat(fenceToken(db, lease.lockName()))
                    .as("the guard rolled back too")
                    .isNull();
            assertRestored(connection);
        }
    }

    /**
     * MariaDB's idle bound is a session setting: it is in force inside the fenced transaction and
     * the session's own value is back after it, however the transaction ended, so the pooled
     * connection's later work is not ended for idling under a lease it does not run under.
     */
    @org.junit.jupiter.api.Test
    void onMariaDbTheIdleBoundEndsWithTheFencedTransaction() throws Exception {
        TestDatabase db = databases.get(Kind.MARIADB);
        long id = IDS.incrementAndGet();
        String name = "idle-" + id;
        long own = 77;
        try (Connection connection = db.connection()) {
            try {
                setIdleTimeout(connection, own);
                // a lease of 2 s: the transaction may sit idle 2 s plus the grace, whole seconds
                long inside = JdbcFencing.inTransaction(
                        connection, new FixedLease(name, 5, Duration.ofSeconds(2)), JdbcFencingIT::idleTimeout);
                assertThat(inside).isEqualTo(3);
                assertThat(idleTimeout(connection)).as("after a commit").isEqualTo(own);

                assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, 6), c -> {
                            insertCounter(c, id, 1);
                            throw new SQLException("the work failed");
                        }))
                        .hasMessage("the work failed");
                assertThat(idleTimeout(connection)).as("after a failed work").isEqualTo(own);

                assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, 4), c -> 1))
                        .isInstanceOf(FenceRefusedException.class);
                assertThat(idleTimeout(connection)).as("after a refusal").isEqualTo(own);

                connection.setAutoCommit(false);
                FixedLease lease = new FixedLease(name, 6, Duration.ofSeconds(10));
                FencedTransaction transaction = FencedTransaction.of(FenceTable.standard(), connection, lease);
                transaction.begin();
                assertThat(idleTimeout(connection))
                        .as("the guard bounds the session's idle time")
                        .isEqualTo(11);
                connection.rollback();
                transaction.afterCompletion();
                transaction.afterCompletion();
                assertThat(idleTimeout(connection))
                        .as("after the fenced transaction's steps used directly, the transaction rolled back")
                        .isEqualTo(own);
            } finally {
                connection.setAutoCommit(true);
                setIdleTimeout(connection, 0);
            }
        }
    }

    private static long idleTimeout(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("select @@session.idle_transaction_timeout");
                var rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void setIdleTimeout(Connection connection, long seconds) throws SQLException {
        try (var statement = connection.createStatement()) {
            statement.execute("set @@session.idle_transaction_timeout = " + seconds);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLeaseNoLongerValidRunsNothing(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        Lease lease = acquire("invalid-" + IDS.incrementAndGet());
        lease.close();
        AtomicBoolean ran = new AtomicBoolean();
        try (Connection connection = db.connection()) {
            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, lease, c -> ran.getAndSet(true)))
                    .isInstanceOfSatisfying(
                            FenceRefusedException.class,
                            refused -> assertThat(refused.reason())
                                    .isEqualTo(FenceRefusedException.Reason.LEASE_NOT_VALID))
                    .hasMessageContaining("nothing was run");
            assertThat(ran).isFalse();
            assertThat(fenceToken(db, lease.lockName())).isNull();
            assertRestored(connection);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aFailingWorkRollsBackAndPropagatesUnchanged(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        try (Lease lease = acquire("fail-" + id);
                Connection connection = db.connection()) {
            SQLException sqlFailure = new SQLException("the work's own failure", "22000");
            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(connection, lease, c -> {
                insertCounter(c, id, 5);
                throw sqlFailure;
            }));
            assertThat(thrown).isSameAs(sqlFailure);
            assertRestored(connection);

            IllegalStateException unchecked = new IllegalStateException("unchecked");
            thrown = catchThrowable(() -> JdbcFencing.inTransaction(connection, lease, c -> {
                insertCounter(c, id, 5);
                throw unchecked;
            }));
            assertThat(thrown).isSameAs(unchecked);
            assertRestored(connection);

            thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                    connection,
                    lease,
                    c -> c.prepareStatement("select no_such_column from counter")
                            .executeQuery()));
            assertThat(thrown).isInstanceOf(SQLException.class).isNotInstanceOf(FenceRefusedException.class);
            assertRestored(connection);

            assertThat(counterRow(db, id)).as("nothing kept").isNull();
            assertThat(fenceToken(db, lease.lockName())).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRollbackThatFailsIsSuppressedIntoTheOriginalFailure(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        try (Lease lease = acquire("broken-" + id)) {
            IllegalStateException original = new IllegalStateException("original");
            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(db.dataSource(), lease, c -> {
                insertCounter(c, id, 5);
                c.close(); // the rollback and the restore then fail
                throw original;
            }));

            assertThat(thrown).isSameAs(original);
            assertThat(original.getSuppressed()).isNotEmpty().allMatch(SQLException.class::isInstance);
            assertThat(counterRow(db, id)).isNull();
            assertThat(activeConnections(db)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void leavesAnIsolationLevelItWasGivenAsItWas(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        try (Lease lease = acquire("isolation-" + id);
                Connection connection = db.connection()) {
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            JdbcFencing.inTransaction(connection, lease, c -> {
                assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
                return insertCounter(c, id, 1);
            });
            assertThat(connection.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
            assertRestored(connection);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void badInputFailsClearlyAndRunsNothing(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        AtomicBoolean ran = new AtomicBoolean();
        SqlWork<Boolean> work = c -> ran.getAndSet(true);
        try (Lease lease = acquire("bad-" + IDS.incrementAndGet());
                Connection connection = db.connection()) {
            assertThatThrownBy(() -> JdbcFencing.inTransaction((Connection) null, lease, work))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("connection");
            assertThatThrownBy(() -> JdbcFencing.inTransaction((javax.sql.DataSource) null, lease, work))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("dataSource");
            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, null, work))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease");
            assertThatThrownBy(() -> JdbcFencing.inTransaction(db.dataSource(), lease, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("work");

            connection.setAutoCommit(false);
            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, lease, work))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("autocommit");
            assertThat(connection.getAutoCommit()).as("left as it was").isFalse();
            connection.rollback();
            connection.setAutoCommit(true);

            Connection closed = db.connection();
            closed.close();
            assertThatThrownBy(() -> JdbcFencing.inTransaction(closed, lease, work))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("closed");

            assertThat(ran).isFalse();
            assertThat(fenceToken(db, lease.lockName())).isNull();
        }
    }

    private static Lease acquire(String name) throws InterruptedException {
        return locks.lock(name).acquire(Duration.ofSeconds(10), Duration.ofMinutes(5));
    }

    static int insertCounter(Connection connection, long id, long value) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("insert into counter (id, counter_value, last_writer) values (?, ?, 0)")) {
            statement.setLong(1, id);
            statement.setLong(2, value);
            return statement.executeUpdate();
        }
    }

    static int setCounter(Connection connection, long id, long value) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("update counter set counter_value = ? where id = ?")) {
            statement.setLong(1, value);
            statement.setLong(2, id);
            return statement.executeUpdate();
        }
    }

    static long counter(TestDatabase db, long id) {
        Long value = counterRow(db, id);
        assertThat(value).as("counter row %s", id).isNotNull();
        return value;
    }

    static Long counterRow(TestDatabase db, long id) {
        return db.queryLong("select counter_value from counter where id = ?", id);
    }

    static Long fenceToken(TestDatabase db, String lockName) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", lockName);
    }

    private static int activeConnections(TestDatabase db) throws SQLException {
        return db.dataSource()
                .unwrap(HikariDataSource.class)
                .getHikariPoolMXBean()
                .getActiveConnections();
    }

    private static void assertRestored(Connection connection) throws SQLException {
        assertThat(connection.getAutoCommit()).as("autocommit restored").isTrue();
        assertThat(connection.isClosed()).isFalse();
    }
}
