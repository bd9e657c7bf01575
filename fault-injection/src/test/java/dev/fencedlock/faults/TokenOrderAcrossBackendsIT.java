package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jdbc.StaleTokenException;
import dev.fencedlock.redlock.internal.RedlockWithClock;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.redis.RedisServersExtension;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one token order across backends ({@link TokenOrder}): a deployment that switches one lock
 * name from redlock (three real redis-server processes) to zookeeper (an in-process server) and
 * back. Every fenced write goes through the fence row of {@code fencing-jdbc} on PostgreSQL, so each scenario also
 * shows what the fence makes of the tokens.
 *
 * <p>The Redlock clients read an injected wall clock; the ZooKeeper server reads this machine's.
 * Within the clock assumption (clocks apart by less than the time between the last grant of one
 * backend and the first of the next), every new token is above every earlier one and every fenced
 * write commits. Beyond it, the later backend's tokens are lower, and the fence refuses its
 * writes: the counter never takes a write from a token below one it has seen.
 */
class TokenOrderAcrossBackendsIT {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int GRANTS_PER_PHASE = 5;

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @RegisterExtension
    static final PerClassResource<TestDatabase> db = PerClassResource.of(() -> {
        TestDatabase database =
                TestDatabase.create(TestDatabase.Kind.POSTGRESQL).migrate("classpath:db/fencedlock/migration");
        database.execute(
                "CREATE TABLE token_order_counter (name VARCHAR(256) PRIMARY KEY, counter_value BIGINT NOT NULL)");
        return database;
    });

    private static TestingServer zooKeeper;

    @BeforeAll
    static void start() throws Exception {
        zooKeeper = ZooKeeperServers.start();
        redis.servers().awaitUptime(LEASE);
    }

    @AfterAll
    static void stop() throws Exception {
        zooKeeper.close();
    }

    @Test
    void redlockThenZooKeeperThenRedlockEveryNewTokenIsAboveEveryEarlierOne() throws Exception {
        String lock = newLock();
        List<Long> tokens = new ArrayList<>();
        try (LockClient redlock = redlock(System::currentTimeMillis)) {
            tokens.addAll(grantsWithWrites(redlock, lock, Outcome.COMMITTED));
        }
        try (LockClient zk = zooKeeper()) {
            tokens.addAll(grantsWithWrites(zk, lock, Outcome.COMMITTED));
        }
        try (LockClient redlock = redlock(System::currentTimeMillis)) {
            tokens.addAll(grantsWithWrites(redlock, lock, Outcome.COMMITTED));
        }
        assertThat(tokens).hasSize(3 * GRANTS_PER_PHASE).isSorted().doesNotHaveDuplicates();
        assertThat(counter(lock)).isEqualTo(3L * GRANTS_PER_PHASE);
    }

    /**
     * Redlock clocks 300 ms ahead, then 300 ms behind the ZooKeeper server's: each switch waits
     * (on the clocks, not for a fixed time) until the gap since the last grant exceeds the skew, as
     * the assumption asks, and the order holds.
     */
    @Test
    void skewedClocksWithinTheBoundKeepTheOrder() throws Exception {
        String lock = newLock();
        long skew = 300;
        List<Long> tokens = new ArrayList<>();
        try (LockClient ahead = redlock(() -> System.currentTimeMillis() + skew)) {
            tokens.addAll(grantsWithWrites(ahead, lock, Outcome.COMMITTED));
        }
        awaitClockPast(last(tokens), 0);
        try (LockClient zk = zooKeeper()) {
            tokens.addAll(grantsWithWrites(zk, lock, Outcome.COMMITTED));
        }
        awaitClockPast(last(tokens), skew);
        try (LockClient behind = redlock(() -> System.currentTimeMillis() - skew)) {
            tokens.addAll(grantsWithWrites(behind, lock, Outcome.COMMITTED));
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(counter(lock)).isEqualTo(3L * GRANTS_PER_PHASE);
    }

    /**
     * A Redlock clock an hour ahead issues tokens that the ZooKeeper backend, on true time, stays
     * below after the switch: the order is broken. The fence has seen the larger tokens, so every
     * write of the ZooKeeper holders is refused; none is lost or applied out of order.
     */
    @Test
    void aClockAheadBeyondTheBoundMakesTheNextBackendsWritesRefusedNeverApplied() throws Exception {
        String lock = newLock();
        List<Long> before;
        try (LockClient ahead =
                redlock(() -> System.currentTimeMillis() + Duration.ofHours(1).toMillis())) {
            before = grantsWithWrites(ahead, lock, Outcome.COMMITTED);
        }
        List<Long> after;
        try (LockClient zk = zooKeeper()) {
            after = grantsWithWrites(zk, lock, Outcome.REFUSED);
        }
        assertThat(after).isSorted().allSatisfy(token -> assertThat(token).isLessThan(before.get(0)));
        assertThat(counter(lock))
                .as("only the writes of the tokens in order were applied")
                .isEqualTo(GRANTS_PER_PHASE);
    }

    /** The same the other way round: ZooKeeper on true time, then Redlock clients an hour behind. */
    @Test
    void aClockBehindBeyondTheBoundMakesItsWritesRefusedNeverApplied() throws Exception {
        String lock = newLock();
        List<Long> before;
        try (LockClient zk = zooKeeper()) {
            before = grantsWithWrites(zk, lock, Outcome.COMMITTED);
        }
        List<Long> after;
        try (LockClient behind =
                redlock(() -> System.currentTimeMillis() - Duration.ofHours(1).toMillis())) {
            after = grantsWithWrites(behind, lock, Outcome.REFUSED);
        }
        assertThat(after).isSorted().allSatisfy(token -> assertThat(token).isLessThan(before.get(0)));
        assertThat(counter(lock)).isEqualTo(GRANTS_PER_PHASE);
    }

    private enum Outcome {
        COMMITTED,
        REFUSED
    }

    private static String newLock() {
        String lock = "faults:token-order:" + UUID.randomUUID();
        db.get().execute("INSERT INTO token_order_counter (name, counter_value) VALUES (?, 0)", lock);
        return lock;
    }

    private static long counter(String lock) {
        return db.get().queryLong("SELECT counter_value FROM token_order_counter WHERE name = ?", lock);
    }

    private static LockClient redlock(LongSupplier wallClockMillis) {
        return RedlockWithClock.create(
                RedisSetup.config(redis.servers().uris(), LEASE).build(), wallClockMillis);
    }

    private static LockClient zooKeeper() {
        return LockClient.create(ZooKeeperSetup.config(zooKeeper.getConnectString(), Duration.ofSeconds(10), LEASE)
                .build());
    }

    /**
     * {@value #GRANTS_PER_PHASE} grants of {@code lock} in a row, each with one fenced increment
     * ({@link JdbcFencing}, the fence row) that must end as {@code expected}; returns the tokens,
     * which must be strictly increasing.
     */
    private static List<Long> grantsWithWrites(LockClient client, String lock, Outcome expected)
            throws InterruptedException, SQLException {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < GRANTS_PER_PHASE; i++) {
            try (Lease lease = client.lock(lock).acquire(WAIT)) {
                Outcome outcome;
                try {
                    JdbcFencing.inTransaction(db.get().dataSource(), lease, connection -> {
                        try (PreparedStatement increment = connection.prepareStatement(
                                "UPDATE token_order_counter SET counter_value = counter_value + 1 WHERE name = ?")) {
                            increment.setString(1, lock);
                            return increment.executeUpdate();
                        }
                    });
                    outcome = Outcome.COMMITTED;
                } catch (StaleTokenException e) {
                    outcome = Outcome.REFUSED;
                }
                assertThat(outcome).as("write with token %d", lease.token()).isEqualTo(expected);
                tokens.add(lease.token());
            }
        }
        assertThat(tokens).as("within one backend").isSorted().doesNotHaveDuplicates();
        return tokens;
    }

    private static long last(List<Long> tokens) {
        return tokens.get(tokens.size() - 1);
    }

    /**
     * Waits until a clock {@code skewMillis} behind this machine's has passed the millisecond in
     * {@code token}'s high bits: the gap the clock assumption asks for between two backends' grants.
     */
    private static void awaitClockPast(long token, long skewMillis) throws InterruptedException {
        while (System.currentTimeMillis() - skewMillis <= TokenOrder.epochMillis(token)) {
            Thread.sleep(1);
        }
    }
}
