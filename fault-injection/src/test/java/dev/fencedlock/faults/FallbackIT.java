package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jdbc.StaleTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServersExtension;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code fencedlock.fallback=zookeeper} behind {@code redlock} on three real redis-server processes
 * and an in-process ZooKeeper: Redis losing its quorum (two of three nodes SIGSTOP'd), and two
 * clients that disagree about Redis (one reaches it, one only through a proxy that drops
 * everything), so that both hold the same lock at once and only the fence row keeps the data right.
 */
class FallbackIT {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

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

    private static LockConfig config(List<String> redisUris) {
        return RedisSetup.config(redisUris, LEASE)
                .fallback("zookeeper")
                .set(ZooKeeperSettings.CONNECT, zooKeeper.getConnectString())
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(10))
                .build();
    }

    @Test
    void whenRedisLosesItsQuorumLeasesComeFromZooKeeperAndReturnToRedisTokensGrowingThroughout() throws Exception {
        Switches switches = new Switches();
        String lock = "faults:fallback:" + UUID.randomUUID();
        List<Long> tokens = new ArrayList<>();
        try (LockClient client = LockClient.create(config(redis.servers().uris()), switches)) {
            tokens.addAll(grants(client, lock, "redlock", 3));

            redis.servers().get(0).pause();
            redis.servers().get(1).pause();
            tokens.addAll(grants(client, lock, "zookeeper", 3));
            assertThat(switches.events).containsExactly("redlock->zookeeper LockUnavailableException");

            redis.servers().get(0).resume();
            redis.servers().get(1).resume();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            String backend = "zookeeper";
            while (!backend.equals("redlock")) {
                assertThat(System.nanoTime() - deadline)
                        .as("a lease from redlock within 60 s of its nodes' resumption")
                        .isNegative();
                try (Lease lease = client.lock(lock).acquire(WAIT)) {
                    backend = lease.backend();
                    tokens.add(lease.token());
                }
            }
            tokens.addAll(grants(client, lock, "redlock", 2));
        }
        assertThat(tokens)
                .as("tokens across redlock -> zookeeper -> redlock")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(switches.events)
                .containsExactly("redlock->zookeeper LockUnavailableException", "zookeeper->redlock -");
    }

    @Test
    void aFallbackThatCannotServeIsRefusedWhenTheClientStartsNotWhenRedisFails() {
        LockConfig withoutConnect = RedisSetup.config(redis.servers().uris(), LEASE)
                .fallback("zookeeper")
                .build();
        assertThatThrownBy(() -> LockClient.create(withoutConnect))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ZooKeeperSettings.CONNECT + " is required");
        assertThatThrownBy(() -> RedisSetup.config(redis.servers().uris(), LEASE)
                        .fallback("redlock")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.fallback 'redlock' is the same as fencedlock.backend");
        LockConfig unknown = RedisSetup.config(redis.servers().uris(), LEASE)
                .fallback("etcd")
                .build();
        assertThatThrownBy(() -> LockClient.create(unknown))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown fencedlock.fallback 'etcd'")
                .hasMessageContaining("redlock")
                .hasMessageContaining("zookeeper");
    }

    /** {@code count} grants in a row, each within the wait, each from {@code backend}. */
    private static List<Long> grants(LockClient client, String lock, String backend, int count)
            throws InterruptedException {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try (Lease lease = client.lock(lock).acquire(WAIT)) {
                assertThat(lease.backend()).as("grant %d of %d", i + 1, count).isEqualTo(backend);
                tokens.add(lease.token());
            }
        }
        return tokens;
    }

    /**
     * Both clients hold the lock at once while each increments a counter through {@link JdbcFencing}
     * (see {@link #bothHoldAndTheFenceLosesNoUpdate}).
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void clientsThatDisagreeAboutRedisBothHoldAndTheFenceLosesNoUpdate(TestDatabase.Kind kind) throws Exception {
        String lock = "faults:fallback-fence:" + UUID.randomUUID();
        try (TestDatabase db = TestDatabase.create(kind).migrate("classpath:db/fencedlock/migration")) {
            db.execute("create table fallback_counter (name varchar(200) primary key, val bigint not null)");
            db.execute("insert into fallback_counter (name, val) values (?, 0)", lock);
            bothHoldAndTheFenceLosesNoUpdate(
                    lock,
                    lease -> {
                        try {
                            increment(db, lease, lock);
                            return true;
                        } catch (StaleTokenException e) {
                            return false;
                        }
                    },
                    () -> db.queryLong("select val from fallback_counter where name = ?", lock));
        }
    }

    /**
     * The same with JPA: both clients hold the lock at once while each increments the fenced
     * {@link dev.fencedlock.faults.db.Counter} entity through {@code fencing-jpa} ({@link
     * FencedIncrement}: the lease bound before the transaction begins, the counter read, the value
     * read plus one written). Every increment is committed or refused with {@link
     * StaleFencingTokenException}; none fails otherwise and none is lost.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void clientsThatDisagreeAboutRedisBothHoldAndTheJpaFenceLosesNoUpdate(TestDatabase.Kind kind) throws Exception {
        String lock = "faults:fallback-jpa:" + UUID.randomUUID();
        try (FaultDatabase db = FaultDatabase.create(kind)) {
            db.createCounter(lock, 0);
            bothHoldAndTheFenceLosesNoUpdate(
                    lock,
                    lease -> jpaIncrement(db, lease, lock),
                    () -> db.counterState(lock, 0).finalValue());
        }
    }

    /**
     * Client {@code direct} reaches Redis; client {@code cutOff} reaches it only through proxies that
     * drop everything, so it falls back to ZooKeeper. Both hold the lock at once. The older
     * holder's fenced write is refused; then both clients' workers increment one counter through
     * {@code increment} until each has made its attempts: every increment is kept or refused, and
     * the counter equals the number kept, so no update was lost.
     *
     * @param increment one fenced read-modify-write of the counter under the lease: true if it
     *     committed, false if the fence refused it; anything else it throws fails the test
     * @param counter the counter's committed value
     */
    private void bothHoldAndTheFenceLosesNoUpdate(String lock, CounterIncrement increment, LongSupplier counter)
            throws Exception {
        List<TcpProxy> proxies = RedisSetup.proxies(redis.servers());
        try (LockClient direct = LockClient.create(config(redis.servers().uris()));
                LockClient cutOff = LockClient.create(config(RedisSetup.uris(proxies)))) {
            proxies.forEach(TcpProxy::blackhole);

            Lease onRedis = direct.lock(lock).acquire(WAIT);
            Lease onZooKeeper = cutOff.lock(lock).acquire(WAIT);
            assertThat(onRedis.backend()).isEqualTo("redlock");
            assertThat(onZooKeeper.backend()).isEqualTo("zookeeper");
            assertThat(onRedis.isValid() && onZooKeeper.isValid())
                    .as("both clients hold the lock at once")
                    .isTrue();
            assertThat(onZooKeeper.token()).isGreaterThan(onRedis.token());
            assertThat(increment.apply(onZooKeeper))
                    .as("the newer holder's write")
                    .isTrue();
            assertThat(increment.apply(onRedis)).as("the older holder's write").isFalse();
            assertThat(counter.getAsLong()).isEqualTo(1);
            onRedis.close();
            onZooKeeper.close();

            AtomicInteger kept = new AtomicInteger(1);
            AtomicInteger refused = new AtomicInteger(1);
            int attemptsPerWorker = 8;
            ExecutorService workers = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (LockClient client : List.of(direct, cutOff, direct, cutOff)) {
                    running.add(workers.submit(() -> {
                        for (int i = 0; i < attemptsPerWorker; i++) {
                            try (Lease lease = client.lock(lock).acquire(WAIT)) {
                                (increment.apply(lease) ? kept : refused).incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> worker : running) {
                    worker.get(5, TimeUnit.MINUTES);
                }
            } finally {
                workers.shutdownNow();
            }
            assertThat(kept.get() + refused.get()).isEqualTo(2 + 4 * attemptsPerWorker);
            assertThat(counter.getAsLong())
                    .as("the counter took every kept increment and nothing else (%d refused)", refused.get())
                    .isEqualTo(kept.get());
        } finally {
            proxies.forEach(TcpProxy::close);
        }
    }

    /** One fenced increment of the scenario's counter under a lease. */
    @FunctionalInterface
    private interface CounterIncrement {
        /** @return true if the increment committed, false if the fence refused it */
        boolean apply(Lease lease) throws Exception;
    }

    /**
     * Reads the {@link dev.fencedlock.faults.db.Counter} and writes it back one higher through
     * {@code fencing-jpa}, fenced by {@code lease}: true if committed, false if refused as stale
     * (at {@code begin()} or at commit).
     *
     * @throws AssertionError if the write failed in any other way: its outcome is unknown
     */
    private static boolean jpaIncrement(FaultDatabase db, Lease lease, String lock) throws SQLException {
        WriteOutcome outcome;
        String detail;
        try (FencedIncrement increment = FencedIncrement.begin(db.entityManagerFactory(), lease, lock)) {
            widenTheRace();
            var write = increment.commit(lease.backend(), UUID.randomUUID().toString(), System::nanoTime);
            outcome = write.outcome();
            detail = write.detail();
        } catch (StaleFencingTokenException e) {
            return false;
        }
        if (outcome == WriteOutcome.UNKNOWN) {
            throw new AssertionError("a fenced JPA increment failed otherwise than refused: " + detail);
        }
        return outcome == WriteOutcome.OK;
    }

    /** Reads the counter and writes it back one higher, fenced by {@code lease}; returns the new value. */
    private static long increment(TestDatabase db, Lease lease, String lock) throws SQLException {
        return JdbcFencing.inTransaction(db.dataSource(), lease, connection -> {
            long value;
            try (PreparedStatement read =
                    connection.prepareStatement("select val from fallback_counter where name = ?")) {
                read.setString(1, lock);
                try (ResultSet row = read.executeQuery()) {
                    row.next();
                    value = row.getLong(1);
                }
            }
            widenTheRace();
            try (PreparedStatement write =
                    connection.prepareStatement("update fallback_counter set val = ? where name = ?")) {
                write.setLong(1, value + 1);
                write.setString(2, lock);
                write.executeUpdate();
            }
            return value + 1;
        });
    }

    /**
     * Holds the transaction between its read and its write, so that the transactions of two
     * overlapping holders interleave there: without the fence row, both would write the same value.
     */
    private static void widenTheRace() throws SQLException {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", e);
        }
    }

    /** The client's backend switches, in order, as {@code from->to cause}. */
    private static final class Switches implements LockEventListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void backendSwitched(String lockName, String from, String to, LockException cause) {
            events.add(from + "->" + to + " "
                    + (cause == null ? "-" : cause.getClass().getSimpleName()));
        }
    }
}
