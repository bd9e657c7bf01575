package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.redlock.internal.RedlockWithClock;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
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
    /** The zookeeper backend's default {@code fencedlock.zookeeper.base-path}. */
    private static final String DEFAULT_BASE_PATH = "/fencedlock";

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

    /**
     * A ZooKeeper token carries the leader's clock when its contender joined the line, not when it
     * was granted. A ZooKeeper client joins behind a ZooKeeper holder; while it waits, Redlock
     * grants the same name after the join (as a fallback may while clients disagree about the
     * primary's health) and writes. The waiter, granted afterwards on true time, carries a token
     * below Redlock's, so the clock assumption's gap counts from the join: the fence refuses the
     * waiter's write, and only the writes in token order are applied.
     */
    @Test
    void aZooKeeperWaiterThatJoinedBeforeAnotherBackendsGrantHasTheLowerTokenAndIsRefused() throws Exception {
        String lock = newLock();
        String lockPath = ZooKeeperLocks.lockPath(DEFAULT_BASE_PATH, lock);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        CuratorFramework observer = CuratorFrameworkFactory.newClient(
                zooKeeper.getConnectString(), new ExponentialBackoffRetry(100, 10, 1_000));
        observer.start();
        try (LockClient holderClient = zooKeeper();
                LockClient waiterClient = zooKeeper();
                LockClient redlock = redlock(System::currentTimeMillis)) {
            Lease holder = holderClient.lock(lock).acquire(WAIT);
            assertThat(fencedIncrement(holder, lock)).isEqualTo(Outcome.COMMITTED);
            Future<Lease> waiter = thread.submit(() -> waiterClient.lock(lock).acquire(WAIT));
            List<String> line = Await.value(
                    "the waiter's lock node behind the holder's",
                    WAIT,
                    () -> children(observer, lockPath),
                    nodes -> nodes.size() == 2);
            String waiterNode = line.stream()
                    .max(Comparator.comparing(node -> node.substring(node.lastIndexOf("-lock-"))))
                    .orElseThrow();
            long joinMillis =
                    observer.checkExists().forPath(lockPath + "/" + waiterNode).getCtime();
            awaitClockPast(TokenOrder.floor(joinMillis), 0);

            long redlockToken;
            try (Lease other = redlock.lock(lock).acquire(WAIT)) {
                assertThat(fencedIncrement(other, lock)).isEqualTo(Outcome.COMMITTED);
                redlockToken = other.token();
            }
            holder.close();
            try (Lease granted = waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                assertThat(granted.token()).isGreaterThan(holder.token()).isLessThan(redlockToken);
                assertThat(TokenOrder.epochMillis(granted.token())).isEqualTo(joinMillis);
                assertThat(fencedIncrement(granted, lock)).isEqualTo(Outcome.REFUSED);
            }
            assertThat(counter(lock)).as("the holder's and Redlock's writes").isEqualTo(2);
        } finally {
            thread.shutdownNow();
            observer.close();
        }
    }

    private static List<String> children(CuratorFramework observer, String path) {
        try {
            return observer.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("could not list " + path, e);
        }
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
                assertThat(fencedIncrement(lease, lock))
                        .as("write with token %d", lease.token())
                        .isEqualTo(expected);
                tokens.add(lease.token());
            }
        }
        assertThat(tokens).as("within one backend").isSorted().doesNotHaveDuplicates();
        return tokens;
    }

    /** One fenced increment of the lock's counter ({@link JdbcFencing}, the fence row). */
    private static Outcome fencedIncrement(Lease lease, String lock) throws SQLException {
        try {
            JdbcFencing.inTransaction(db.get().dataSource(), lease, connection -> {
                try (PreparedStatement increment = connection.prepareStatement(
                        "UPDATE token_order_counter SET counter_value = counter_value + 1 WHERE name = ?")) {
                    increment.setString(1, lock);
                    return increment.executeUpdate();
                }
            });
            return Outcome.COMMITTED;
        } catch (FenceRefusedException e) {
            return Outcome.REFUSED;
        }
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
