package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The restart quarantine on five real nodes: a node that restarts empty while a lease it granted is
 * still valid must not let a second holder in. The servers start before
 * the class and tests restart them, so no test assumes how long a node has been up: each waits for
 * the quarantine state it needs or configures a quarantine no run can outlast.
 */
class RedlockQuarantineIT {
    /** Every client's lease time, hence (by default) the quarantine too. */
    private static final Duration LEASE = Duration.ofSeconds(6);

    /**
     * Outlasts a quarantine of {@link #LEASE} on nodes that have just started, as any client judges
     * it: a client that never saw a node dates its start by its uptime, which has 1 s granularity.
     */
    private static final Duration OUTLAST_QUARANTINE = LEASE.plusSeconds(10);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    /**
     * Client A holds the lock on exactly nodes 1, 2, 3 (4 and 5 are down). Node 3 crashes and comes
     * back empty, 4 and 5 come back empty: three empty nodes would make a majority, but neither a
     * new client nor one that knew the nodes may use them while A's lease is valid. The quarantine
     * is the default, the lease time.
     */
    @Test
    void restartedNodesDoNotCountWhileTheHolderIsStillValid() throws Exception {
        RedisServers servers = redis.servers();
        String name = "quarantine:issue-scenario";
        LockConfig config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, servers.uris())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .leaseTime(LEASE)
                .build();
        servers.get(3).kill();
        servers.get(4).kill();
        try (TestClient holder = TestClient.create(config);
                TestClient knewTheNodes = TestClient.create(config)) {
            // Each client dates a node's start from its own reading of the uptime, so each waits
            // until nodes 1-3 count for it: then A gets the lock at once, and B's refusal below is
            // "held elsewhere", not "quarantined".
            awaitNodesOneToThreeCount(holder);
            awaitNodesOneToThreeCount(knewTheNodes);
            Lease held = holder.lock(name)
                    .tryAcquire(Duration.ofSeconds(2), LEASE)
                    .orElseThrow(() -> new AssertionError("the holder did not get the lock on nodes 1-3"));
            assertThat(knewTheNodes.lock(name).tryAcquire(Duration.ZERO))
                    .as("held on 1-3")
                    .isEmpty();

            servers.get(2).kill();
            servers.get(2).restartEmpty();
            servers.get(3).restartEmpty();
            servers.get(4).restartEmpty();

            try (TestClient neverSawThem = TestClient.create(config)) {
                // it may date nodes 1 and 2 a little later than the others did, and still exclude them
                assertThat(quarantinedNodesOnRefusal(neverSawThem, name))
                        .as("a new client judges the restarted nodes by their uptime")
                        .containsAll(nodes(servers, 2, 3, 4));
            }
            assertThat(quarantinedNodesOnRefusal(knewTheNodes, name))
                    .as("a client that knew the nodes counts 1 and 2 (held by A), not the restarted ones")
                    .isEqualTo(nodes(servers, 2, 3, 4));
            assertThat(held.isValid())
                    .as("the refusals happened while the holder's lease was valid")
                    .isTrue();

            // Attempts now find nodes 1-2 held and 3-5 quarantined: the acquire must keep trying
            // through that unavailability until A's lease and the quarantine have run out.
            Lease next = knewTheNodes
                    .lock(name)
                    .tryAcquire(OUTLAST_QUARANTINE)
                    .orElseThrow(() -> new AssertionError("never granted after the holder's lease ran out"));
            assertThat(held.isValid())
                    .as("granted only after the holder's lease ended")
                    .isFalse();
            assertThat(next.token()).isGreaterThan(held.token());
            next.close();
            held.close();
        }
    }

    /**
     * A client that has never seen a node dates its start by its uptime. With a quarantine far longer
     * than this test, every attempt of the wait finds all nodes quarantined; the failure then names
     * the whole wait as its elapsed time, not the last attempt's.
     */
    @Test
    void aNodeIsJudgedByItsUptimeWhenTheClientHasNeverSeenIt() throws Exception {
        RedisServers servers = redis.servers();
        for (int node = 0; node < 5; node++) {
            servers.get(node).restartEmpty();
        }
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofMinutes(10))
                .build();
        Duration wait = Duration.ofMillis(300);
        try (TestClient client = TestClient.create(config)) {
            assertThatThrownBy(() -> client.lock("quarantine:young-nodes").tryAcquire(wait))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.nodeFailures()).hasSize(5);
                        assertThat(e.nodeFailures())
                                .allSatisfy(failure ->
                                        assertThat(failure.cause()).isInstanceOf(NodeQuarantinedException.class));
                        assertThat(e).hasMessageContaining("restart quarantine");
                        assertThat(TestClient.reportedElapsed(e)).isGreaterThanOrEqualTo(wait);
                    });
        }
    }

    /**
     * With a configured quarantine, a fixed lease or an extension longer than it would outlive the
     * quarantine of a node that restarts empty under it: both are refused before any node is asked,
     * and a held lease stays as it was.
     */
    @Test
    void aConfiguredQuarantineRefusesLongerFixedLeasesAndExtensions() throws Exception {
        RedisServers servers = redis.servers();
        Duration quarantine = Duration.ofSeconds(2);
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.RESTART_QUARANTINE, quarantine)
                .leaseTime(quarantine)
                .build();
        String name = "quarantine:covers-leases";
        try (TestClient client = TestClient.create(config, MonotonicClock.SYSTEM, RedlockProvider.Options.DEFAULT)) {
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(1), Duration.ofMinutes(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 2s")
                    .hasMessageContaining("5m");
            for (int node = 0; node < 5; node++) {
                assertThat(TestClient.lockValue(servers, node, name))
                        .as("no node was asked")
                        .isNull();
            }
            // the nodes may have just been restarted by another test: wait out their quarantine
            try (Lease lease = client.lock(name)
                    .tryAcquire(OUTLAST_QUARANTINE, quarantine)
                    .orElseThrow(() -> new AssertionError("never granted"))) {
                assertThatThrownBy(() -> lease.extend(Duration.ofMinutes(10)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 2s")
                        .hasMessageContaining("10m");
                assertThat(lease.isValid()).isTrue();
                lease.extend(quarantine);
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    /** A client whose lease time exceeds the configured quarantine is refused at creation. */
    @Test
    void aLeaseTimeLongerThanTheConfiguredQuarantineIsRefusedAtCreation() {
        LockConfig config = TestClient.config(redis.servers())
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofSeconds(30))
                .leaseTime(Duration.ofMinutes(5))
                .build();
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.LEASE_TIME + " 5m")
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 30s");
    }

    /** Acquires and releases a lock of its own, which needs all of nodes 1-3 while 4 and 5 are down. */
    private static void awaitNodesOneToThreeCount(TestClient client) throws InterruptedException {
        client.lock("quarantine:nodes-1-3-count")
                .tryAcquire(OUTLAST_QUARANTINE)
                .orElseThrow(() -> new AssertionError("nodes 1-3 never counted for a client"))
                .close();
    }

    /**
     * Tries for half a second; the client must be refused for lack of counting answers (no lease, no
     * other exception). Returns the nodes the refusal names as quarantined.
     */
    private static List<String> quarantinedNodesOnRefusal(TestClient client, String name) {
        LockUnavailableException refusal = catchThrowableOfType(
                LockUnavailableException.class, () -> client.lock(name).tryAcquire(Duration.ofMillis(500)));
        assertThat(refusal)
                .as("refused as unavailable while the holder's lease is valid")
                .isNotNull();
        assertThat(refusal).hasMessageContaining("restart quarantine");
        return refusal.nodeFailures().stream()
                .filter(failure -> failure.cause() instanceof NodeQuarantinedException)
                .map(NodeFailure::node)
                .toList();
    }

    private static List<String> nodes(RedisServers servers, int... indexes) {
        return Arrays.stream(indexes).mapToObj(i -> servers.get(i).uri() + "/0").toList();
    }
}
