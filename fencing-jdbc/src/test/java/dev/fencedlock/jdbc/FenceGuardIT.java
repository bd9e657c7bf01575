package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.LockException;
import dev.fencedlock.jdbc.FenceDatabases.Isolation;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The fence guard ({@link dev.fencedlock.jdbc.internal.FencedTransaction}) on each database: exact names, the missing table, and the refusals that hide behind concurrency failures. */
class FenceGuardIT {
    private static final AtomicLong IDS = new AtomicLong();
    private static final FenceDatabases databases = new FenceDatabases("fjgd");

    @AfterAll
    static void close() {
        databases.close();
    }

    /**
     * Names that differ only in case or a trailing space get rows of their own, or, where the
     * column's collation would put them in one row (MariaDB's default), the second is refused with
     * how to fix the column: never does one name's token move or refuse the other's transactions.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void namesThatACollationWouldFoldNeverShareARow(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        String name = "Stock-" + IDS.incrementAndGet();
        enterAndCommit(db, name, 10);
        String trailing = "x-" + IDS.incrementAndGet();
        enterAndCommit(db, trailing, 10);

        for (String[] pair : new String[][] {{name, name.toLowerCase()}, {trailing, trailing + " "}}) {
            for (long token : new long[] {5, 20}) {
                Throwable thrown = catchThrowable(() -> enterAndCommit(db, pair[1], token));
                if (kind == Kind.MARIADB) {
                    assertThat(thrown)
                            .as("%s after %s on MariaDB's default collation", pair[1], pair[0])
                            .isInstanceOf(LockException.class)
                            .isNotInstanceOf(FenceRefusedException.class)
                            .hasMessageContaining("'" + pair[0] + "'")
                            .hasMessageContaining("'" + pair[1] + "'")
                            .hasMessageContaining("utf8mb4_nopad_bin");
                } else {
                    assertThat(thrown).as("%s with token %s", pair[1], token).isNull();
                }
            }
            assertThat(JdbcFencingIT.fenceToken(db, pair[0]))
                    .as("%s untouched", pair[0])
                    .isEqualTo(10);
        }
    }

    /** With the documented DDL, MariaDB keeps every name apart. */
    @Test
    void theRecommendedMariaDbCollationKeepsNamesApart() throws Exception {
        try (TestDatabase db = TestDatabase.create(Kind.MARIADB, "fjco", 4).migrate(FenceDatabases.MIGRATION)) {
            db.execute("ALTER TABLE fencedlock_fence MODIFY lock_name VARCHAR(256) CHARACTER SET utf8mb4 "
                    + "COLLATE utf8mb4_nopad_bin NOT NULL");
            enterAndCommit(db, "Stock", 10);
            enterAndCommit(db, "stock", 5);
            enterAndCommit(db, "x", 10);
            enterAndCommit(db, "x ", 5);

            assertThat(JdbcFencingIT.fenceToken(db, "Stock")).isEqualTo(10);
            assertThat(db.queryLong("select count(*) from fencedlock_fence")).isEqualTo(4);
            assertThatThrownBy(() -> enterAndCommit(db, "stock", 4)).isInstanceOf(FenceRefusedException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMissingTableSaysHowToCreateIt(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        try (Connection connection = db.connection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(FenceTable.named("no_such_fence"), connection, "lock", 1))
                    .isInstanceOf(SQLSyntaxErrorException.class)
                    .hasMessageContaining("no_such_fence")
                    .hasMessageContaining("classpath:db/fencedlock/migration");
            connection.rollback();
        }
    }

    /** A fence table made by hand without its primary key would let two first transactions in: refused. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aFenceTableWithoutItsPrimaryKeyIsRefused(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        db.execute("create table fence_by_hand (lock_name varchar(256) not null, token bigint not null)");
        try (Connection connection = db.connection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(FenceTable.named("fence_by_hand"), connection, "lock", 1))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("fence_by_hand")
                    .hasMessageContaining("no primary key")
                    .hasMessageContaining("ADD PRIMARY KEY (lock_name)");
            connection.rollback();
        }
        assertThat(db.queryLong("select count(*) from fence_by_hand")).isZero();
    }

    /** H2 reports a missing table in a database with no tables at all as 42104; still explained. */
    @Test
    void aMissingTableInAnEmptyH2DatabaseSaysHowToCreateIt() throws Exception {
        try (Connection connection =
                java.sql.DriverManager.getConnection("jdbc:h2:mem:empty" + IDS.incrementAndGet(), "sa", "")) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(connection, "lock", 1))
                    .isInstanceOf(SQLSyntaxErrorException.class)
                    .hasMessageContaining("fencedlock_fence is missing")
                    .hasMessageContaining("classpath:db/fencedlock/migration");
        }
    }

    /**
     * A newer holder has committed and another transaction of it holds the row; the older holder
     * waits for the row lock as long as its lease's remaining time allows (H2: its session's lock
     * timeout). The timeout hides a refusal, and is reported as one; a timeout that hides none says
     * that an older transaction holds the row (PostgreSQL: which backend, for how long).
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLockTimeoutThatHidesARefusalIsReportedAsTheRefusal(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        String name = "timeout-" + IDS.incrementAndGet();
        enterAndCommit(db, name, 5);
        try (Connection holder = db.connection();
                Connection waiter = db.connection()) {
            holder.setAutoCommit(false);
            Fences.enter(holder, name, 5);
            shortLockTimeout(kind, waiter);
            try {
                Throwable busy = catchThrowable(() -> JdbcFencing.inTransaction(waiter, shortLease(name, 5), c -> 1));
                assertThat(busy)
                        .as("nothing newer is committed: an older transaction holds the row")
                        .isInstanceOf(FenceRowBusyException.class)
                        .hasMessageContaining("'" + name + "'")
                        .hasMessageContaining("older transaction");
                assertThat(busy.getCause()).matches(FencedTransaction::isLockTimeout);
                if (kind == Kind.POSTGRESQL) {
                    assertThat(((FenceRowBusyException) busy).holder())
                            .hasValueSatisfying(
                                    who -> assertThat(who).contains("pid").contains("idle in transaction"));
                }

                holder.commit();
                Fences.enter(holder, name, 7);
                holder.commit();
                Fences.enter(holder, name, 7);

                Throwable refusal =
                        catchThrowable(() -> JdbcFencing.inTransaction(waiter, shortLease(name, 6), c -> 1));
                assertThat(refusal).isInstanceOf(FenceRefusedException.class);
                assertThat(((FenceRefusedException) refusal).newerToken()).hasValue(7);
                assertThat(((FenceRefusedException) refusal).token()).isEqualTo(6);
                assertThat(refusal.getCause())
                        .as("the refusal came from behind the lock timeout")
                        .isNotNull()
                        .matches(FencedTransaction::isConcurrencyFailure);
                assertThat(waiter.getAutoCommit()).isTrue();
            } finally {
                holder.rollback();
                resetLockTimeout(kind, waiter);
            }
        }
    }

    /**
     * PostgreSQL under REPEATABLE READ: the older holder's guard waits for the newer one's commit
     * and then fails to serialize; that failure hides the refusal.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSerializationFailureThatHidesARefusalIsReportedAsTheRefusal(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        String name = "serialize-" + IDS.incrementAndGet();
        enterAndCommit(db, name, 5);
        LockWaits waits = new LockWaits(db);
        try (Connection newer = db.connection();
                Connection older = db.connection()) {
            newer.setAutoCommit(false);
            Fences.enter(newer, name, 7);
            older.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            CompletableFuture<Integer> attempt = startWaiting(waits, older, lease(name, 6), c -> 1);
            newer.commit();
            Throwable refusal = catchThrowable(() -> attempt.get(60, TimeUnit.SECONDS));

            assertThat(refusal).hasCauseInstanceOf(FenceRefusedException.class);
            FenceRefusedException stale = (FenceRefusedException) refusal.getCause();
            assertThat(stale.newerToken()).hasValue(7);
            if (kind == Kind.POSTGRESQL) {
                assertThat(stale.getCause())
                        .as("PostgreSQL reports a serialization failure first")
                        .isNotNull()
                        .matches(FencedTransaction::isConcurrencyFailure);
            }
        }
    }

    /**
     * Two transactions of one lease (one token): the first at READ COMMITTED holds the row; the
     * second at REPEATABLE READ or SERIALIZABLE takes its snapshot with the guard, before it waits for the row. The
     * two writes cannot conflict (each inserts a row of its own), so only the fence row orders them:
     * the second must either see the first's row or fail to serialize, never commit a write derived
     * from a read that missed it. A guard that only locked an unchanged row, without writing a new
     * version of it, lets the second commit from its stale snapshot on PostgreSQL, which raises no
     * serialization failure for a row that was locked but not changed (docs/fencing.md).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndSnapshotIsolations")
    void aRepeatableReadTransactionOfTheSameLeaseNeverCommitsFromASnapshotBeforeTheFirst(Kind kind, Isolation isolation)
            throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "snapshot-" + id;
        long base = 1_000_000L * id;
        String count = "select count(*) from counter where id between " + base + " and " + (base + 9);
        enterAndCommit(db, name, 5);
        LockWaits waits = new LockWaits(db);
        try (Connection first = db.connection();
                Connection second = db.connection()) {
            first.setAutoCommit(false);
            Fences.enter(first, name, 5);
            second.setTransactionIsolation(isolation.level);
            CompletableFuture<Long> attempt = startWaiting(waits, second, lease(name, 5), c -> {
                long seen = queryLong(c, count);
                insertCounter(c, base + 2, seen, 2);
                return seen;
            });
            assertThat(attempt).as("the second waits for the first's row").isNotDone();
            insertCounter(first, base + 1, queryLong(first, count), 1);
            first.commit();
            first.setAutoCommit(true);

            Throwable failure = catchThrowable(() -> attempt.get(60, TimeUnit.SECONDS));
            if (failure == null) {
                assertThat(attempt.get())
                        .as("the second committed, so its read saw the first's row")
                        .isEqualTo(1);
            } else {
                assertThat(failure.getCause())
                        .as("the second failed to serialize")
                        .isInstanceOf(IllegalStateException.class)
                        .cause()
                        .matches(FencedTransaction::isConcurrencyFailure, "a concurrency failure");
                assertThat(db.queryLong(count)).isEqualTo(1);
            }
        }
    }

    /**
     * Runs {@code work} under {@code lease} on {@code waiter} in another thread and returns once
     * that transaction waits for a lock (or has ended); a failure arrives wrapped in an {@link
     * IllegalStateException}.
     */
    private static <T> CompletableFuture<T> startWaiting(
            LockWaits waits, Connection waiter, FixedLease lease, SqlWork<T> work) throws Exception {
        long session = LockWaits.sessionId(waiter);
        CompletableFuture<T> attempt = CompletableFuture.supplyAsync(() -> {
            try {
                return JdbcFencing.inTransaction(waiter, lease, work);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        while (!waits.isWaiting(session) && !attempt.isDone()) {
            Thread.sleep(waits.pollMillis());
        }
        return attempt;
    }

    private static void insertCounter(Connection connection, long id, long value, long writer) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("insert into counter (id, counter_value, last_writer) values (?, ?, ?)")) {
            statement.setLong(1, id);
            statement.setLong(2, value);
            statement.setLong(3, writer);
            statement.executeUpdate();
        }
    }

    /**
     * H2 2.5 at SERIALIZABLE lets the second transaction's guard through after the first's commit
     * without a concurrency failure and keeps the snapshot it took before it waited, so the guard
     * refuses that level on H2 before it runs anything: the fence row is not raised, the mark not
     * set, and the connection's transaction can go on (unfenced) or roll back.
     */
    @Test
    void serializableIsRefusedOnH2BeforeAnythingRuns() throws Exception {
        TestDatabase db = databases.get(Kind.H2);
        String name = "serializable-h2-" + IDS.incrementAndGet();
        enterAndCommit(db, name, 5);
        try (Connection connection = db.connection()) {
            connection.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(connection, name, 6))
                    .isInstanceOf(SQLFeatureNotSupportedException.class)
                    .hasMessageContaining("cannot run at SERIALIZABLE on H2")
                    .hasMessageContaining("REPEATABLE READ")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("0A000"));
            connection.rollback();
        }
        assertThat(db.queryLong("select token from fencedlock_fence where lock_name = ?", name))
                .as("the fence row, untouched by the refused guard")
                .isEqualTo(5);
    }

    /** Every database at REPEATABLE READ and SERIALIZABLE except H2 at SERIALIZABLE, which the guard refuses. */
    static Stream<Arguments> databasesAndSnapshotIsolations() {
        return Arrays.stream(Kind.values())
                .flatMap(kind -> Stream.of(Isolation.REPEATABLE_READ, Isolation.SERIALIZABLE)
                        .filter(isolation -> kind != Kind.H2 || isolation != Isolation.SERIALIZABLE)
                        .map(isolation -> Arguments.of(kind, isolation)));
    }

    private static long queryLong(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void explainFindsOnlyRefusals(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        String name = "explain-" + IDS.incrementAndGet();
        enterAndCommit(db, name, 7);
        SQLException serialization = new SQLException("could not serialize", "40001");
        try (Connection connection = db.connection()) {
            assertThat(Fences.explain(connection, serialization, name, 6)).hasValueSatisfying(stale -> {
                assertThat(stale.newerToken()).hasValue(7);
                assertThat(stale.getCause()).isSameAs(serialization);
            });
            assertThat(Fences.explain(connection, serialization, name, 7)).isEmpty();
            assertThat(Fences.explain(connection, serialization, "unknown-" + name, 6))
                    .isEmpty();
            assertThat(Fences.explain(connection, new SQLException("syntax", "42000"), name, 6))
                    .isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void enterRefusesBadInputBeforeRunningAnything(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        try (Connection connection = db.connection()) {
            assertThatThrownBy(() -> Fences.enter(connection, "lock", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("autocommit off");
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(connection, " ", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock name");
            assertThatThrownBy(() -> Fences.enter(connection, "lock", -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1");
            assertThatThrownBy(() -> Fences.enter(null, "lock", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("connection");
            connection.rollback();
            connection.setAutoCommit(true);
        }
        assertThat(db.queryLong("select count(*) from fencedlock_fence where lock_name = 'lock'"))
                .isZero();
    }

    private static void enterAndCommit(TestDatabase db, String name, long token) throws SQLException {
        try (Connection connection = db.connection()) {
            connection.setAutoCommit(false);
            try {
                Fences.enter(connection, name, token);
                connection.commit();
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    private static FixedLease lease(String name, long token) {
        return new FixedLease(name, token);
    }

    /** A lease with 300 ms left: the bound of the guard's wait on PostgreSQL and MariaDB (1 s there). */
    private static FixedLease shortLease(String name, long token) {
        return new FixedLease(name, token, java.time.Duration.ofMillis(300));
    }

    private static void shortLockTimeout(Kind kind, Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(
                    switch (kind) {
                        case H2 -> "SET LOCK_TIMEOUT 300";
                        case POSTGRESQL -> "SET lock_timeout = '300ms'";
                        case MARIADB -> "SET SESSION innodb_lock_wait_timeout = 1";
                    });
        }
    }

    private static void resetLockTimeout(Kind kind, Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(
                    switch (kind) {
                        case H2 -> "SET LOCK_TIMEOUT " + TestDatabase.H2_LOCK_TIMEOUT_MILLIS;
                        case POSTGRESQL -> "RESET lock_timeout";
                        case MARIADB -> "SET SESSION innodb_lock_wait_timeout = DEFAULT";
                    });
        }
    }
}
