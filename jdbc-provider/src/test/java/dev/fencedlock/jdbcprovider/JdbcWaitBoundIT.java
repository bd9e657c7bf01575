package dev.fencedlock.jdbcprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The wait contract on the jdbc backend: every acquisition returns or throws within its wait plus
 * one per-attempt timeout ({@code fencedlock.jdbc.operation-timeout}, default 2 s), whatever the
 * database does; and a lock row that another transaction holds locked counts as taken, with no
 * grant landing for nobody once that transaction ends. The bounds asserted are the documented ones
 * plus {@link #MARGIN} for a loaded machine; the measured times are printed (lines starting {@code
 * WAIT-BOUND}) for docs/guarantees.md ("The wait contract").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcWaitBoundIT {
    private static final Duration PER_ATTEMPT = JdbcLockSettings.DEFAULT_OPERATION_TIMEOUT;
    private static final Duration MARGIN = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofMillis(500);
    private static final Map<String, Long> MEASURED = new ConcurrentSkipListMap<>();

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @AfterAll
    static void printTable() {
        MEASURED.forEach((row, millis) -> System.out.printf("WAIT-BOUND %-55s %5d ms%n", row, millis));
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        resources.add(resource);
        return resource;
    }

    private TestDatabase database(TestDatabase.Kind kind) {
        return closeLater(TestDatabase.create(kind, "jdbcwait", 6).migrate(JdbcLockSettings.MIGRATION_LOCATION));
    }

    /** A client on {@code dataSource} with every jdbc setting at its default. */
    private LockClient client(DataSource dataSource) {
        return closeLater(
                JdbcLocks.create(LockConfig.builder().backend(JdbcLocks.BACKEND).build(), dataSource));
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static void record(String row, long millis) {
        MEASURED.merge(row, millis, Math::max);
    }

    // ---------------------------------------------------------------- the lock row locked by another session

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aRowLockedByAnotherTransactionIsTakenAndNoAbandonedGrantLandsWhenItEnds(TestDatabase.Kind kind)
            throws Exception {
        TestDatabase database = database(kind);
        LockClient client = client(database.dataSource());
        String name = "row-locked:" + kind;
        long firstToken;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            firstToken = lease.token(); // the row exists and is free now
        }

        // a DBA's query, a migration: the row locked in a transaction left open
        try (Connection blocker = database.connection()) {
            blocker.setAutoCommit(false);
            lockRow(blocker, name);

            long start = System.nanoTime();
            Optional<Lease> none = client.lock(name).tryAcquire(Duration.ZERO);
            long tryMillis = millisSince(start);
            record(kind + " row locked, tryAcquire(0)", tryMillis);
            assertThat(none).as("a locked row is taken: empty, not an error").isEmpty();
            assertThat(Duration.ofMillis(tryMillis))
                    .as("tryAcquire(0) on a locked row returns without waiting for it (%d ms)", tryMillis)
                    .isLessThan(PER_ATTEMPT);

            start = System.nanoTime();
            assertThatThrownBy(() -> client.lock(name).acquire(WAIT))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("locked");
            long acquireMillis = millisSince(start);
            record(kind + " row locked, acquire(500ms)", acquireMillis);
            assertThat(Duration.ofMillis(acquireMillis))
                    .as("acquire(500ms) on a locked row (%d ms)", acquireMillis)
                    .isGreaterThanOrEqualTo(WAIT)
                    .isLessThanOrEqualTo(WAIT.plus(PER_ATTEMPT).plus(MARGIN));

            blocker.commit();
            // a statement still queued for the row would run now; locking the row again queues
            // behind it, so what is read afterwards includes whatever it did
            lockRow(blocker, name);
            assertThat(holderOf(blocker, name))
                    .as("no grant landed for nobody when the row was freed")
                    .isNull();
            blocker.rollback();
        }
        long start = System.nanoTime();
        Optional<Lease> next = client.lock(name).tryAcquire(Duration.ZERO);
        record(kind + " row freed, tryAcquire(0)", millisSince(start));
        assertThat(next).as("free at once once the other transaction ended").isPresent();
        assertThat(next.get().token()).isGreaterThan(firstToken);
        next.get().close();
    }

    private static void lockRow(Connection connection, String name) throws SQLException {
        try (PreparedStatement lock =
                connection.prepareStatement("SELECT holder FROM fencedlock_lock WHERE lock_name = ? FOR UPDATE")) {
            lock.setString(1, name);
            try (ResultSet row = lock.executeQuery()) {
                assertThat(row.next()).as("the lock row of %s", name).isTrue();
            }
        }
    }

    private static String holderOf(Connection connection, String name) throws SQLException {
        try (PreparedStatement read =
                connection.prepareStatement("SELECT holder FROM fencedlock_lock WHERE lock_name = ?")) {
            read.setString(1, name);
            try (ResultSet row = read.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getString(1);
            }
        }
    }

    // ---------------------------------------------------------------- a database that does not answer

    enum Fault {
        /** TCP open, no byte moves either way. */
        SILENT,
        /** Every connection closed at once, new ones too. */
        REFUSED,
        /** Replies arrive a second after the per-attempt timeout; requests reach the server at once. */
        DELAYED
    }

    enum Call {
        TRY_ACQUIRE_ZERO(Duration.ZERO),
        ACQUIRE_500MS(WAIT);

        final Duration wait;

        Call(Duration wait) {
            this.wait = wait;
        }
    }

    static Stream<Arguments> faults() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase.Kind kind : List.of(TestDatabase.Kind.POSTGRESQL, TestDatabase.Kind.MARIADB)) {
            for (Fault fault : Fault.values()) {
                for (Call call : Call.values()) {
                    cases.add(Arguments.of(kind, fault, call, false));
                }
            }
            cases.add(Arguments.of(kind, Fault.SILENT, Call.TRY_ACQUIRE_ZERO, true));
            cases.add(Arguments.of(kind, Fault.SILENT, Call.ACQUIRE_500MS, true));
        }
        return cases.stream();
    }

    /**
     * The application's pool (HikariCP with its defaults: a 30 s borrow timeout, a 5 s validation
     * timeout) or a URL, through a proxy that then goes silent, refuses or delays replies.
     */
    @ParameterizedTest(name = "{0} {1} {2} url={3}")
    @MethodSource("faults")
    void anAcquisitionEndsWithinItsWaitPlusOnePerAttemptTimeout(
            TestDatabase.Kind kind, Fault fault, Call call, boolean byUrl) throws Exception {
        TestDatabase database = database(kind);
        TcpProxy proxy = closeLater(JdbcLockIT.proxyTo(database));
        LockClient client;
        if (byUrl) {
            client = closeLater(JdbcLockIT.proxiedClient(database, proxy));
        } else {
            HikariConfig pool = new HikariConfig();
            pool.setJdbcUrl(JdbcLockIT.proxiedUrl(database, proxy));
            pool.setUsername(database.user());
            pool.setPassword(database.password());
            pool.setMaximumPoolSize(4);
            client = client(closeLater(new HikariDataSource(pool)));
        }
        String name = "fault:" + fault + ":" + call;
        client.lock(name).tryAcquire(Duration.ZERO).orElseThrow().close(); // the row exists, connections are open

        switch (fault) {
            case SILENT -> proxy.blackhole();
            case REFUSED -> proxy.reset();
            case DELAYED -> proxy.delayReplies(PER_ATTEMPT.plus(Duration.ofSeconds(1)));
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> {
                    if (call == Call.TRY_ACQUIRE_ZERO) {
                        client.lock(name).tryAcquire(Duration.ZERO);
                    } else {
                        client.lock(name).acquire(call.wait);
                    }
                })
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(name);
        long millis = millisSince(start);
        record(kind + " " + fault.name().toLowerCase() + (byUrl ? " (url)" : " (pool)") + ", " + call, millis);
        Duration bound = call.wait.plus(PER_ATTEMPT).plus(MARGIN);
        assertThat(Duration.ofMillis(millis))
                .as(
                        "%s on a %s database returned after %d ms; the contract is wait + per-attempt timeout",
                        call, fault, millis)
                .isLessThanOrEqualTo(bound);

        proxy.pass();
        // a grant that reached the database (at once when replies are late, at the heal when the
        // link was silent) but never answered: its session ended and the grant cleared, not left
        // standing for a lease
        Await.until(
                "no grant left standing for nobody",
                Duration.ofSeconds(15),
                () -> database.queryLong(
                                "SELECT COUNT(*) FROM fencedlock_lock WHERE lock_name = ? AND holder IS NOT NULL", name)
                        == 0);
    }
}
