package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JdbcFencing#inTransaction(DataSource, String, long, Duration, SqlWork)}, the receiver's
 * form, on each database: a presented token is fenced by the same row as a held lease's, so a stale
 * one is refused with the newer effect kept, a newer one raises the row, and one token's
 * transactions run one after the other. Tokens come from real leases of the local backend, the
 * older holder's played by its token after the lease ended, as a paused holder's request carries it.
 */
class PresentedTokenIT {
    private static final AtomicLong IDS = new AtomicLong();
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final FenceDatabases databases = new FenceDatabases("fjrecv");
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
    void aStaleTokenIsRefusedAndTheNewerEffectKept(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "stale-" + id;
        long older = grant(name);
        long newer = grant(name);
        JdbcFencing.inTransaction(db.dataSource(), name, newer, BOUND, c -> insertCounter(c, id, 1));

        AtomicBoolean wrote = new AtomicBoolean();
        Throwable refusal = catchThrowable(() -> JdbcFencing.inTransaction(db.dataSource(), name, older, BOUND, c -> {
            int rows = setCounter(c, id, 99);
            wrote.set(true);
            return rows;
        }));

        assertThat(refusal).isInstanceOfSatisfying(FenceRefusedException.class, stale -> {
            assertThat(stale.reason()).isEqualTo(FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED);
            assertThat(stale.lockName()).isEqualTo(name);
            assertThat(stale.token()).isEqualTo(older);
            assertThat(stale.newerToken()).hasValue(newer);
        });
        assertThat(wrote).as("no statement of the stale work completed").isFalse();
        assertThat(counter(db, id)).as("the newer effect is kept").isEqualTo(1);
        assertThat(fenceToken(db, name)).isEqualTo(newer);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theSameTokenTwiceRunsLikeTwoTransactionsOfOneLease(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "same-" + id;
        long token = grant(name);

        JdbcFencing.inTransaction(db.dataSource(), name, token, BOUND, c -> insertCounter(c, id, 1));
        JdbcFencing.inTransaction(db.dataSource(), name, token, BOUND, c -> addToCounter(c, id, 1));

        assertThat(counter(db, id)).isEqualTo(2);
        assertThat(fenceToken(db, name)).isEqualTo(token);
    }

    /**
     * Two requests presenting one token at once: the second's guard waits for the first's
     * transaction to end, as a lease's second transaction would, so its update reads the first's
     * committed row and no update is lost.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void twoTransactionsOfOneTokenAtOnceRunOneAfterTheOther(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "together-" + id;
        long token = grant(name);
        LockWaits waits = new LockWaits(db);
        CountDownLatch firstWrote = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        CompletableFuture<Integer> first =
                CompletableFuture.supplyAsync(() -> presented(db.dataSource(), name, token, c -> {
                    int rows = insertCounter(c, id, 1);
                    firstWrote.countDown();
                    await(release);
                    return rows;
                }));
        assertThat(firstWrote.await(30, TimeUnit.SECONDS)).isTrue();
        try (Connection waiter = db.connection()) {
            long session = LockWaits.sessionId(waiter);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(
                    () -> presented(only(waiter), name, token, c -> addToCounter(c, id, 1)));
            while (!waits.isWaiting(session) && !second.isDone()) {
                Thread.sleep(waits.pollMillis());
            }
            assertThat(second).as("the second waits while the first is open").isNotDone();
            release.countDown();

            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(second.get(30, TimeUnit.SECONDS))
                    .as("the second updated the row the first committed")
                    .isEqualTo(1);
        } finally {
            release.countDown();
        }
        assertThat(counter(db, id)).isEqualTo(2);
        assertThat(fenceToken(db, name)).isEqualTo(token);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aNewerTokenRaisesTheRowAndTheOlderIsRefusedFromThenOn(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        long id = IDS.incrementAndGet();
        String name = "raise-" + id;
        long older = grant(name);
        long newer = grant(name);
        JdbcFencing.inTransaction(db.dataSource(), name, older, BOUND, c -> insertCounter(c, id, 1));
        assertThat(fenceToken(db, name)).isEqualTo(older);

        JdbcFencing.inTransaction(db.dataSource(), name, newer, BOUND, c -> setCounter(c, id, 2));
        assertThat(fenceToken(db, name)).as("raised").isEqualTo(newer);

        assertThatThrownBy(
                        () -> JdbcFencing.inTransaction(db.dataSource(), name, older, BOUND, c -> setCounter(c, id, 3)))
                .isInstanceOfSatisfying(
                        FenceRefusedException.class,
                        stale -> assertThat(stale.newerToken()).hasValue(newer));
        assertThat(counter(db, id)).isEqualTo(2);
        assertThat(fenceToken(db, name)).isEqualTo(newer);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void badArgumentsAreNamedAndNothingRuns(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        String name = "bad-" + IDS.incrementAndGet();
        DataSource source = db.dataSource();
        AtomicBoolean ran = new AtomicBoolean();
        SqlWork<Boolean> work = c -> ran.getAndSet(true);

        assertThatThrownBy(() -> JdbcFencing.inTransaction((DataSource) null, name, 5, BOUND, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource");
        assertThatThrownBy(() -> JdbcFencing.inTransaction(source, null, 5, BOUND, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name");
        assertThatThrownBy(() -> JdbcFencing.inTransaction(source, " ", 5, BOUND, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name");
        assertThatThrownBy(() -> JdbcFencing.inTransaction(source, "bell\u0007", 5, BOUND, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control character");
        assertThatThrownBy(() -> JdbcFencing.inTransaction(source, name, -1, BOUND, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("presentedToken")
                .hasMessageContaining("-1");
        for (Duration bound : new Duration[] {null, Duration.ZERO, Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> JdbcFencing.inTransaction(source, name, 5, bound, work))
                    .as("bound %s", bound)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bound");
        }
        assertThatThrownBy(() -> JdbcFencing.inTransaction(source, name, 5, BOUND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("work");

        assertThat(ran).isFalse();
        assertThat(fenceToken(db, name)).isNull();
    }

    /** The token of a real grant of {@code name}, its lease ended: a later grant's token is larger. */
    private static long grant(String name) throws InterruptedException {
        try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(10))) {
            return lease.token();
        }
    }

    private static <T> T presented(DataSource source, String name, long token, SqlWork<T> work) {
        try {
            return JdbcFencing.inTransaction(source, name, token, BOUND, work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A data source that hands out {@code connection}, so that the test knows the session the call runs on. */
    private static DataSource only(Connection connection) {
        return (DataSource) Proxy.newProxyInstance(
                PresentedTokenIT.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return connection;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int insertCounter(Connection connection, long id, long value) throws SQLException {
        return JdbcFencingIT.insertCounter(connection, id, value);
    }

    private static int setCounter(Connection connection, long id, long value) throws SQLException {
        return JdbcFencingIT.setCounter(connection, id, value);
    }

    private static int addToCounter(Connection connection, long id, long delta) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("update counter set counter_value = counter_value + ? where id = ?")) {
            statement.setLong(1, delta);
            statement.setLong(2, id);
            return statement.executeUpdate();
        }
    }

    private static long counter(TestDatabase db, long id) {
        return JdbcFencingIT.counter(db, id);
    }

    private static Long fenceToken(TestDatabase db, String lockName) {
        return JdbcFencingIT.fenceToken(db, lockName);
    }
}
