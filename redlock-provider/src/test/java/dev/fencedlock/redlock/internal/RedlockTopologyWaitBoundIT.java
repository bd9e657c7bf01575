package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisSentinelGroup;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wait contract in the two topology modes (Sentinel, Cluster): an acquisition returns or throws within
 * its wait plus one node timeout, also while the topology's own servers hang. Each server is frozen
 * with SIGSTOP ({@link RedisServerProcess#pause()}): its connections stay open and nothing is
 * answered, the worst case for a client (a dead server refuses at once).
 *
 * <ul>
 *   <li>Sentinel: the master frozen before any failover (the Sentinels still name it); every
 *       Sentinel frozen, with the master answering and the lock held elsewhere; a client started
 *       while every Sentinel is frozen.
 *   <li>Cluster: the master of the lock's slot frozen; every master frozen (so every seed too); a
 *       client started while every seed is frozen.
 * </ul>
 *
 * The node timeout is 500 ms, longer than the slack, so that a second node timeout on the caller's
 * path would show; asserted is measured &lt;= wait + node timeout + {@value #SLACK_MILLIS} ms for a
 * loaded two-core machine. After each fault the servers are thawed and the lock must be granted
 * again; the first grant after a frozen master thawed comes about one lease time later ({@link
 * #LEASE_TIME}). The measured table is printed for docs/guarantees.md ("The wait contract").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockTopologyWaitBoundIT {
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final long SLACK_MILLIS = 400;
    /**
     * Short, because it is what the lock is unavailable for after a frozen master thaws: the frozen
     * server still runs the acquire scripts the client gave up on (Redis executes what sits in a
     * socket's buffer, also of a connection the client closed since), and the late grant holds the
     * lock until its lease time passes.
     */
    private static final Duration LEASE_TIME = Duration.ofSeconds(2);
    /** Long enough for a cluster that marked a frozen master failed to take it back. */
    private static final Duration RECOVERY = Duration.ofSeconds(20);

    private static final List<String> ROWS = new ArrayList<>();

    private enum Outcome {
        EMPTY,
        UNAVAILABLE
    }

    @Test
    void sentinelMode() throws Exception {
        // no replica and a minute's down-after: nothing fails over while the master is frozen
        try (RedisSentinelGroup group = RedisSentinelGroup.start("wait-bound", 0, 2, Duration.ofMinutes(1))) {
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.SENTINEL_MASTER, group.masterName())
                    .set(RedlockSettings.SENTINEL_NODES, group.sentinelNodes())
                    .set(RedlockSettings.NODE_TIMEOUT, NODE_TIMEOUT)
                    .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                    .leaseTime(LEASE_TIME)
                    .build();
            String name = "wait-bound:sentinel";
            try (TestClient client = TestClient.create(config);
                    TestClient elsewhere = TestClient.create(config)) {
                FencedLock lock = client.lock(name);
                grantedWithin("before the faults (Sentinel)", lock, RECOVERY);

                RedisServerProcess master = group.master();
                master.pause();
                try {
                    measureBoth("Sentinel", "master SIGSTOPped (no failover)", lock, Outcome.UNAVAILABLE);
                } finally {
                    master.resume();
                }
                grantedWithin("after the master thawed", lock, RECOVERY);

                try (Lease held = elsewhere.lock(name).acquire(RECOVERY)) {
                    group.sentinels().forEach(RedisServerProcess::pause);
                    try {
                        // past the lookup interval, so that the calls below start lookups that hang
                        Thread.sleep(SentinelRedisNode.REFRESH_MILLIS + 100);
                        measureBoth("Sentinel", "every Sentinel SIGSTOPped, lock held elsewhere", lock, Outcome.EMPTY);
                        long start = System.nanoTime();
                        try (TestClient late = TestClient.create(config)) {
                            long created = (System.nanoTime() - start) / 1_000_000;
                            System.out.printf(
                                    "RedlockTopologyWaitBoundIT: Sentinel client created in %d ms with every Sentinel"
                                            + " SIGSTOPped%n",
                                    created);
                            measureBoth(
                                    "Sentinel",
                                    "every Sentinel SIGSTOPped, client started meanwhile",
                                    late.lock(name),
                                    Outcome.UNAVAILABLE);
                            group.sentinels().forEach(RedisServerProcess::resume);
                            held.close();
                            grantedWithin(
                                    "(client started meanwhile) after the Sentinels thawed and the holder released",
                                    late.lock(name),
                                    RECOVERY);
                        }
                    } finally {
                        group.sentinels().stream()
                                .filter(RedisServerProcess::isPaused)
                                .forEach(RedisServerProcess::resume);
                    }
                }
                grantedWithin("after the Sentinels thawed", lock, RECOVERY);
            }
        }
    }

    @Test
    void clusterMode() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.CLUSTER_NODES, cluster.seeds())
                    .set(RedlockSettings.NODE_TIMEOUT, NODE_TIMEOUT)
                    .leaseTime(LEASE_TIME)
                    .build();
            String name = "wait-bound:cluster";
            try (TestClient client = TestClient.create(config)) {
                FencedLock lock = client.lock(name);
                grantedWithin("before the faults (cluster)", lock, RECOVERY);

                RedisServerProcess owner =
                        cluster.ownerOf(cluster.slotOf(RedlockKeys.defaults().lock(name)));
                owner.pause();
                try {
                    measureBoth("Cluster", "master of the lock's slot SIGSTOPped", lock, Outcome.UNAVAILABLE);
                } finally {
                    owner.resume();
                }
                grantedWithin("after the slot's master thawed", lock, RECOVERY);

                cluster.all().forEach(RedisServerProcess::pause);
                try {
                    measureBoth("Cluster", "every master (every seed) SIGSTOPped", lock, Outcome.UNAVAILABLE);
                    long start = System.nanoTime();
                    try (TestClient late = TestClient.create(config)) {
                        long created = (System.nanoTime() - start) / 1_000_000;
                        System.out.printf(
                                "RedlockTopologyWaitBoundIT: cluster client created in %d ms with every seed"
                                        + " SIGSTOPped%n",
                                created);
                        measureBoth(
                                "Cluster",
                                "every seed SIGSTOPped, client started meanwhile",
                                late.lock(name),
                                Outcome.UNAVAILABLE);
                        cluster.all().forEach(RedisServerProcess::resume);
                        grantedWithin(
                                "(client started meanwhile) after every master thawed", late.lock(name), RECOVERY);
                    }
                } finally {
                    cluster.all().stream().filter(RedisServerProcess::isPaused).forEach(RedisServerProcess::resume);
                }
                grantedWithin("after every master thawed", lock, RECOVERY);
            }
        }
    }

    /** The lock is granted again within {@code within} (the servers thawed): no fault left a client stuck. */
    private static void grantedWithin(String after, FencedLock lock, Duration within) throws InterruptedException {
        long start = System.nanoTime();
        Optional<Lease> lease = lock.tryAcquire(within);
        assertThat(lease).as("granted within %s %s", within, after).isPresent();
        lease.get().close();
        System.out.printf(
                "RedlockTopologyWaitBoundIT: granted %d ms %s%n", (System.nanoTime() - start) / 1_000_000, after);
    }

    private static void measureBoth(String mode, String fault, FencedLock lock, Outcome expected)
            throws InterruptedException {
        measure(mode, fault, lock, Duration.ZERO, expected);
        measure(mode, fault, lock, WAIT, expected);
    }

    private static void measure(String mode, String fault, FencedLock lock, Duration wait, Outcome expected)
            throws InterruptedException {
        String call = "tryAcquire(" + (wait.isZero() ? "ZERO" : wait.toMillis() + "ms") + ")";
        long start = System.nanoTime();
        Outcome outcome;
        try {
            Optional<Lease> lease = lock.tryAcquire(wait);
            lease.ifPresent(Lease::close);
            assertThat(lease).as("%s, %s: %s granted", mode, fault, call).isEmpty();
            outcome = Outcome.EMPTY;
        } catch (LockUnavailableException e) {
            outcome = Outcome.UNAVAILABLE;
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        long bound = wait.toMillis() + NODE_TIMEOUT.toMillis();
        ROWS.add("| redlock " + mode + " | " + fault + " | " + call + " | " + millis + " ms | " + bound + " ms | "
                + (outcome == Outcome.EMPTY ? "empty" : "LockUnavailableException") + " |");
        assertThat(outcome).as("%s, %s: %s", mode, fault, call).isEqualTo(expected);
        assertThat(millis)
                .as("%s, %s: %s against wait + node timeout + %d ms of slack", mode, fault, call, SLACK_MILLIS)
                .isLessThanOrEqualTo(bound + SLACK_MILLIS);
    }

    @AfterAll
    static void printTable() {
        System.out.println("| backend | fault | call | measured | bound | outcome |");
        ROWS.forEach(System.out::println);
    }
}
