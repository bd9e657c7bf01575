package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens on five real nodes: strictly increasing across successive holders whatever
 * majorities they used, when nodes restart empty, and distinct even when mutual exclusion failed.
 */
class RedlockTokenIT {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    /**
     * Both clients' wall clocks are stuck at zero, so proposals carry no time and only the node
     * counters can order the tokens: every pair of different majorities, in both orders, with the
     * counters left as diverse as the previous pairs made them.
     */
    @Test
    void everyMajorityFollowedByADifferentOneGetsALargerToken() throws Exception {
        RedisServers servers = redis.servers();
        RedlockProvider.Options stoppedClock = new RedlockProvider.Options(null, () -> 0L, false);
        LockConfig config = TestClient.config(servers).build();
        String name = "tokens:every-pair";
        long previous = 0;
        int pairs = 0;
        try (TestClient first = TestClient.create(config, MonotonicClock.SYSTEM, stoppedClock);
                TestClient second = TestClient.create(config, MonotonicClock.SYSTEM, stoppedClock)) {
            for (List<Integer> before : Quorums.majorities(5)) {
                for (List<Integer> after : Quorums.majorities(5)) {
                    if (before.equals(after)) {
                        continue;
                    }
                    long earlier = grantOn(first, name, before);
                    long later = grantOn(second, name, after);
                    assertThat(earlier)
                            .as("token on %s after the previous pair's %d", before, previous)
                            .isGreaterThan(previous);
                    assertThat(later)
                            .as("token on %s after %d on %s", after, earlier, before)
                            .isGreaterThan(earlier);
                    previous = later;
                    pairs++;
                }
            }
        }
        assertThat(pairs).isEqualTo(16 * 15);
    }

    @Test
    void tokensKeepGrowingWhenANodeRestartsEmptyBetweenDifferentMajorities() throws Exception {
        RedisServers servers = redis.servers();
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofMillis(300))
                .build();
        String name = "tokens:node-restart";
        long a;
        try (TestClient client = TestClient.create(config)) {
            a = grantOn(client, name, List.of(0, 1, 2), Duration.ofSeconds(10));
        }
        servers.get(2).restartEmpty();
        long b;
        try (TestClient client = TestClient.create(config)) {
            b = grantOn(client, name, List.of(2, 3, 4), Duration.ofSeconds(10));
        }
        long c;
        try (TestClient client = TestClient.create(config)) {
            c = grantOn(client, name, List.of(0, 3, 4), Duration.ofSeconds(10));
        }
        assertThat(b).isGreaterThan(a);
        assertThat(c).isGreaterThan(b);
    }

    @Test
    void tokensKeepGrowingWhenAllNodesRestartEmpty() throws Exception {
        RedisServers servers = redis.servers();
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofMillis(300))
                .build();
        String name = "tokens:all-restart";
        try (TestClient old = TestClient.create(config)) {
            long before = grantOn(old, name, List.of(0, 1, 2, 3, 4), Duration.ofSeconds(10));
            for (RedisServerProcess server : servers.all()) {
                server.restartEmpty();
            }
            for (int node = 0; node < 5; node++) {
                assertThat(servers.get(node).command("EXISTS", RedlockKeys.tokenKey(name)))
                        .as("counter on node %d after the restart", node)
                        .isEqualTo(0L);
            }
            long fresh;
            try (TestClient client = TestClient.create(config)) {
                fresh = grantOn(client, name, List.of(0, 1, 2, 3, 4), Duration.ofSeconds(10));
            }
            long again = grantOn(old, name, List.of(0, 1, 2, 3, 4), Duration.ofSeconds(10));
            assertThat(fresh).as("a new client after all nodes restarted").isGreaterThan(before);
            assertThat(again).as("the old client after that").isGreaterThan(fresh);
        }
    }

    @Test
    void grantsNeverShareATokenEvenWhenMutualExclusionFailed() throws Exception {
        RedisServers servers = redis.servers();
        String name = "tokens:broken-exclusion";
        RedlockProvider.Options stoppedClock = new RedlockProvider.Options(null, () -> 0L, false);
        LockConfig config = TestClient.config(servers).build();
        try (TestClient first = TestClient.create(config, MonotonicClock.SYSTEM, stoppedClock);
                TestClient second = TestClient.create(config, MonotonicClock.SYSTEM, stoppedClock)) {
            long previous = 0;
            for (int round = 0; round < 20; round++) {
                Lease stale = first.lock(name).tryAcquire(Duration.ZERO, LEASE).orElseThrow();
                for (RedisServerProcess server : servers.all()) {
                    server.command("DEL", RedlockKeys.lockKey(name)); // the lock, not the counter
                }
                Lease current =
                        second.lock(name).tryAcquire(Duration.ZERO, LEASE).orElseThrow();
                assertThat(stale.isValid())
                        .as("the first holder still believes it holds")
                        .isTrue();
                assertThat(stale.token()).isGreaterThan(previous);
                assertThat(current.token()).isGreaterThan(stale.token());
                previous = current.token();
                stale.close();
                current.close();
            }
        }
    }

    /** Acquires {@code name} with only {@code majority} free, returns the token and releases. */
    private static long grantOn(TestClient client, String name, List<Integer> majority) throws InterruptedException {
        return grantOn(client, name, majority, Duration.ZERO);
    }

    private static long grantOn(TestClient client, String name, List<Integer> majority, Duration wait)
            throws InterruptedException {
        RedisServers servers = redis.servers();
        List<Integer> others = Quorums.complement(majority, servers.size());
        TestClient.takeElsewhere(servers, others, name);
        try {
            Optional<Lease> lease = client.lock(name).tryAcquire(wait, LEASE);
            assertThat(lease).as("granted on %s", majority).isPresent();
            try (Lease held = lease.get()) {
                return held.token();
            }
        } finally {
            TestClient.freeElsewhere(servers, name);
        }
    }
}
