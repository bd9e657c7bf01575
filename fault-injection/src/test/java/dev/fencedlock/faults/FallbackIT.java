package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
 * With every client agreeing about Redis, the default takeover waits out the other backend's leases:
 * the tests at the end check that no two leases of a name are valid at once then, and show the
 * bounded overlap of {@code fencedlock.fallback-takeover=immediate}; a probe that works with a
 * restart quarantine below one second; a ZooKeeper primary that goes silent.
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
                } catch (LockUnavailableException e) {
                    // the switch back waits out the fallback's leases; a wait that ends before says so
                    assertThat(e).hasMessageContaining("answers again since");
                    Thread.sleep(100);
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
                        } catch (FenceRefusedException e) {
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

    // The overlaps a fallback allows, with every client agreeing about the primary. wait-out (the
    // default): no second lease of a name is granted while another is valid, checked at the moment
    // of the grant; immediate: the documented, bounded overlap.

    /** What a loaded two-core machine may add to a bound: scheduling, a watchdog tick. */
    private static final Duration SLACK = Duration.ofSeconds(2);

    @AfterEach
    void redisAnswers() {
        for (int i = 0; i < 2; i++) {
            if (redis.servers().get(i).isPaused()) {
                redis.servers().get(i).resume();
            }
        }
    }

    private static LockConfig.Builder redlockWithZooKeeperFallback(FallbackTakeover takeover) {
        return RedisSetup.config(redis.servers().uris(), LEASE)
                .fallback("zookeeper")
                .fallbackTakeover(takeover)
                .set(ZooKeeperSettings.CONNECT, zooKeeper.getConnectString())
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(4));
    }

    /** Redis without a quorum: two of the three nodes stopped (SIGSTOP), seen alike by every client. */
    private static void redisLosesItsQuorum() {
        redis.servers().get(0).pause();
        redis.servers().get(1).pause();
    }

    private static void redisAnswersAgain() {
        redis.servers().get(0).resume();
        redis.servers().get(1).resume();
    }

    /**
     * A holds a fixed 3 s lease from redlock; Redis loses its quorum; B (same configuration)
     * asks for the same name. With {@code wait-out}, zookeeper grants it to B only once A's lease has
     * run out; with {@code immediate}, at once, while A's lease is still valid.
     */
    @ParameterizedTest
    @EnumSource(FallbackTakeover.class)
    void theFallbackGrantsANameOnlyOnceThePrimarysLeaseOfItCanNoLongerBeValid(FallbackTakeover takeover)
            throws Exception {
        String name = "faults:overlap-takeover:" + UUID.randomUUID();
        AtomicReference<Lease> other = new AtomicReference<>();
        CompletableFuture<Duration> otherLeftAtGrant = new CompletableFuture<>();
        LockConfig config = redlockWithZooKeeperFallback(takeover).build();
        try (LockClient a = LockClient.create(config);
                LockClient b = LockClient.create(config, atGrant("zookeeper", name, other, otherLeftAtGrant))) {
            Lease onRedlock = a.lock(name).acquire(WAIT, LEASE);
            assertThat(onRedlock.backend()).isEqualTo("redlock");
            other.set(onRedlock);
            redisLosesItsQuorum();

            long start = System.nanoTime();
            Lease onZooKeeper = b.lock(name).acquire(WAIT, LEASE);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(onZooKeeper.backend()).isEqualTo("zookeeper");
            Duration leftAtGrant = otherLeftAtGrant.get(5, TimeUnit.SECONDS);
            System.out.printf(
                    "takeover %s: B granted by zookeeper after %d ms; A's redlock lease had %d ms left then%n",
                    takeover, took.toMillis(), leftAtGrant.toMillis());
            assertThat(took).as("within the wait").isLessThan(WAIT.plus(SLACK));
            assertOverlapAsDocumented(takeover, leftAtGrant, "A's redlock lease when zookeeper granted the name to B");
            onZooKeeper.close();
            onRedlock.close();
        }
    }

    /**
     * During the outage zookeeper grants an auto-renewing lease; when Redis answers again
     * that lease stops renewing and runs out (onLost fires), and with {@code wait-out} redlock grants
     * the name only after that; with {@code immediate} at once, the fallback's lease then still valid
     * but ending within its lease time instead of renewing without end.
     */
    @ParameterizedTest
    @EnumSource(FallbackTakeover.class)
    void afterTheSwitchBackThePrimaryGrantsANameOnlyOnceTheFallbacksLeaseOfItCanNoLongerBeValid(
            FallbackTakeover takeover) throws Exception {
        String name = "faults:overlap-switch-back:" + UUID.randomUUID();
        AtomicReference<Lease> other = new AtomicReference<>();
        CompletableFuture<Duration> otherLeftAtGrant = new CompletableFuture<>();
        LockConfig config = redlockWithZooKeeperFallback(takeover).build();
        try (LockClient client = LockClient.create(config, atGrant("redlock", name, other, otherLeftAtGrant))) {
            redisLosesItsQuorum();
            // another name finds Redis down, so that no write for this name is left queued on the
            // stopped nodes (it would land when they resume and hold the name there for a lease time)
            if (takeover == FallbackTakeover.WAIT_OUT) {
                assertThatThrownBy(() -> client.lock(name + ":first").acquire(Duration.ZERO))
                        .isInstanceOf(LockUnavailableException.class);
            } else {
                try (Lease first = client.lock(name + ":first").acquire(Duration.ZERO)) {
                    assertThat(first.backend()).isEqualTo("zookeeper");
                }
            }
            Lease onZooKeeper = client.lock(name).acquire(WAIT);
            assertThat(onZooKeeper.backend()).isEqualTo("zookeeper");
            other.set(onZooKeeper);
            CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
            AtomicLong lostAt = new AtomicLong();
            onZooKeeper.onLost((lease, cause) -> {
                lostAt.set(System.nanoTime());
                lost.complete(cause);
            });
            Thread.sleep(LEASE.multipliedBy(2).toMillis());
            assertThat(onZooKeeper.isValid()).as("renewed while Redis is down").isTrue();

            redisAnswersAgain();
            Await.until(
                    "the zookeeper lease stops renewing once the probe hears Redis",
                    Duration.ofSeconds(30),
                    () -> ((AbstractLease) onZooKeeper).renewalStopped());
            long stoppedAt = System.nanoTime();
            Lease onRedlock = acquireFrom(client, name, "redlock");
            Duration grantedAfter = Duration.ofNanos(System.nanoTime() - stoppedAt);
            Duration leftAtGrant = otherLeftAtGrant.get(5, TimeUnit.SECONDS);
            LeaseLostException cause = lost.get(LEASE.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
            Duration lostAfter = Duration.ofNanos(lostAt.get() - stoppedAt);
            System.out.printf(
                    "switch back %s: redlock granted %d ms after the zookeeper lease stopped renewing, with %d ms of it"
                            + " left; it was lost (%s) %d ms after its renewal stopped%n",
                    takeover, grantedAfter.toMillis(), leftAtGrant.toMillis(), cause.reason(), lostAfter.toMillis());
            assertThat(cause.reason()).isEqualTo(LeaseLostException.Reason.EXPIRED);
            assertThat(lostAfter)
                    .as("the fallback's lease ends within its lease time")
                    .isLessThan(LEASE.plus(SLACK));
            assertOverlapAsDocumented(takeover, leftAtGrant, "the zookeeper lease when redlock granted the name");
            onRedlock.close();
        }
    }

    /**
     * A {@code restart-quarantine} below one second still lets the client return to Redis: the
     * probe that decides the switch back asks at the configured lease time, which the client
     * accepted at start against the quarantine, so the probe is granted once Redis answers again.
     */
    @Test
    void withARestartQuarantineBelowOneSecondAcquisitionsReturnToThePrimary() throws Exception {
        Duration quarantine = Duration.ofMillis(500);
        LockConfig config = redlockWithZooKeeperFallback(FallbackTakeover.WAIT_OUT)
                .leaseTime(quarantine)
                .set(RedlockSettings.RESTART_QUARANTINE, quarantine)
                .build();
        String name = "faults:overlap-quarantine:" + UUID.randomUUID();
        try (LockClient client = LockClient.create(config)) {
            redisLosesItsQuorum();
            try (Lease lease = client.lock(name).acquire(WAIT)) {
                assertThat(lease.backend()).isEqualTo("zookeeper");
            }
            redisAnswersAgain();
            long start = System.nanoTime();
            acquireFrom(client, name, "redlock").close();
            System.out.printf(
                    "restart-quarantine 500ms: back on redlock %d ms after Redis answered again%n",
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
        }
    }

    /**
     * A zookeeper primary that goes silent (a black hole in front of it), redlock as the fallback:
     * an acquisition costs its wait and no more. The primary's attempt is given up when the wait is
     * over, and the call throws (wait-out: the fallback may not
     * grant before zookeeper's leases ran out) or is granted by redlock (immediate), within the wait
     * plus one per-attempt timeout.
     */
    @ParameterizedTest
    @EnumSource(FallbackTakeover.class)
    void aSilentZooKeeperPrimaryCostsAnAcquisitionItsWaitAndNoMore(FallbackTakeover takeover) throws Exception {
        Duration wait = Duration.ofSeconds(2);
        Duration bound = wait.plus(Duration.ofSeconds(1)).plus(SLACK); // wait + per-attempt floor + slack
        String name = "faults:overlap-silent-zk:" + UUID.randomUUID();
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", zooKeeper.getPort())) {
            LockConfig config = ZooKeeperSetup.config("127.0.0.1:" + proxy.port(), Duration.ofSeconds(10), LEASE)
                    .fallback("redlock")
                    .fallbackTakeover(takeover)
                    .set(RedlockSettings.NODES, redis.servers().uris())
                    .set(RedlockSettings.NODE_TIMEOUT, RedisSetup.NODE_TIMEOUT)
                    .build();
            try (LockClient client = LockClient.create(config)) {
                try (Lease lease = client.lock(name).acquire(WAIT)) {
                    assertThat(lease.backend()).isEqualTo("zookeeper");
                }
                proxy.blackhole();
                long start = System.nanoTime();
                if (takeover == FallbackTakeover.WAIT_OUT) {
                    assertThatThrownBy(() -> client.lock(name).acquire(wait))
                            .isInstanceOf(LockUnavailableException.class)
                            .hasMessageContaining("backend zookeeper cannot answer since")
                            .hasMessageContaining("fallback redlock grants from")
                            .hasMessageContaining("fencedlock.fallback-takeover=immediate");
                } else {
                    try (Lease lease = client.lock(name).acquire(wait)) {
                        assertThat(lease.backend()).isEqualTo("redlock");
                    }
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                System.out.printf(
                        "silent zookeeper primary, %s: acquire(2s) returned after %d ms%n", takeover, took.toMillis());
                assertThat(took)
                        .as("within the wait plus one per-attempt timeout")
                        .isLessThan(bound);
                proxy.pass();
            }
        }
    }

    /**
     * {@code wait-out}: the other lease had nothing left when the second was granted. {@code
     * immediate}: the documented overlap, the other lease still valid then.
     */
    private static void assertOverlapAsDocumented(FallbackTakeover takeover, Duration leftAtGrant, String other) {
        if (takeover == FallbackTakeover.WAIT_OUT) {
            assertThat(leftAtGrant).as(other).isZero();
        } else {
            assertThat(leftAtGrant)
                    .as("immediate, the documented overlap: " + other)
                    .isPositive();
        }
    }

    /**
     * A lease from {@code backend}, asking until one comes: an acquisition in a switch-back window
     * that its wait does not reach throws {@link LockUnavailableException}, and one before the
     * probe heard the primary may still come from the fallback.
     */
    private static Lease acquireFrom(LockClient client, String name, String backend) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            assertThat(System.nanoTime() - deadline)
                    .as("a lease from %s within 60 s", backend)
                    .isNegative();
            try {
                Lease lease = client.lock(name).acquire(WAIT);
                if (lease.backend().equals(backend)) {
                    return lease;
                }
                lease.close();
            } catch (LockUnavailableException e) {
                Thread.sleep(100);
            }
        }
    }

    /**
     * Records, when {@code backend} grants {@code name}, how long the lease in {@code other} still
     * had (zero if it was no longer valid): the overlap at the moment of the grant.
     */
    private static LockEventListener atGrant(
            String backend, String name, AtomicReference<Lease> other, CompletableFuture<Duration> leftAtGrant) {
        return new LockEventListener() {
            @Override
            public void leaseGranted(Lease lease) {
                Lease held = other.get();
                if (held != null
                        && lease.backend().equals(backend)
                        && lease.lockName().equals(name)) {
                    leftAtGrant.complete(held.isValid() ? held.remaining() : Duration.ZERO);
                }
            }
        };
    }
}
