package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.redis.RedisServers;
import dev.fencedlock.testkit.redis.RedisServersExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The restart quarantine on five real nodes, in the scenario of issue 3. */
class RedlockQuarantineIT {
    /** Every client's lease time, hence (by default) the quarantine too. */
    private static final Duration LEASE = Duration.ofSeconds(6);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    /**
     * Client A holds the lock on exactly nodes 1, 2, 3 (4 and 5 are down). Node 3 crashes and comes
     * back empty, 4 and 5 come back empty: three empty nodes would make a majority, but neither a
     * new client nor one that knew the nodes before may use them while A's lease is valid. The
     * quarantine is the default, the lease time.
     */
    @Test
    void restartedNodesDoNotCountWhileTheHolderIsStillValid() throws Exception {
        RedisServers servers = redis.servers();
        String name = "quarantine:issue-scenario";
        LockConfig config = LockConfig.builder()
                .backend("redlock")
                .redlockNodes(servers.uris())
                .redlockNodeTimeout(Duration.ofSeconds(1))
                .leaseTime(LEASE)
                .build();
        servers.get(3).kill();
        servers.get(4).kill();
        try (TestClient holder = TestClient.create(config);
                TestClient knewTheNodes = TestClient.create(config)) {
            Lease held = holder.lock(name)
                    .tryAcquire(LEASE.plusSeconds(10), LEASE)
                    .orElseThrow(() -> new AssertionError("the holder never got the lock on nodes 1-3"));
            assertThat(knewTheNodes.lock(name).tryAcquire(Duration.ZERO))
                    .as("held on 1-3")
                    .isEmpty();

            servers.get(2).kill();
            servers.get(2).restartEmpty();
            servers.get(3).restartEmpty();
            servers.get(4).restartEmpty();

            try (TestClient neverSawThem = TestClient.create(config)) {
                assertRefused(neverSawThem, name);
            }
            assertRefused(knewTheNodes, name);
            assertThat(held.isValid())
                    .as("the refusals happened while the holder's lease was valid")
                    .isTrue();

            Lease next = knewTheNodes
                    .lock(name)
                    .tryAcquire(LEASE.plusSeconds(10))
                    .orElseThrow(() -> new AssertionError("never granted after the holder's lease ran out"));
            assertThat(held.isValid())
                    .as("granted only after the holder's lease ended")
                    .isFalse();
            assertThat(next.token()).isGreaterThan(held.token());
            next.close();
            held.close();
        }
    }

    @Test
    void aNodeIsJudgedByItsUptimeWhenTheClientHasNeverSeenIt() throws Exception {
        RedisServers servers = redis.servers();
        for (int node = 0; node < 5; node++) {
            servers.get(node).restartEmpty();
        }
        LockConfig config = TestClient.config(servers)
                .redlockRestartQuarantine(Duration.ofMinutes(10))
                .build();
        try (TestClient client = TestClient.create(config)) {
            try {
                Optional<Lease> lease = client.lock("quarantine:young-nodes").tryAcquire(Duration.ZERO);
                fail("granted on nodes up for seconds with a 10 minute quarantine: %s", lease);
            } catch (LockUnavailableException expected) {
                assertThat(expected.nodeFailures()).hasSize(5);
                assertThat(expected).hasMessageContaining("restart quarantine");
            }
        }
    }

    /** For half a second of trying, the client is refused: no lease, and if an exception, the reason. */
    private static void assertRefused(TestClient client, String name) throws InterruptedException {
        try {
            Optional<Lease> lease = client.lock(name).tryAcquire(Duration.ofMillis(500));
            assertThat(lease).as("granted while the holder's lease is valid").isEmpty();
        } catch (LockUnavailableException expected) {
            assertThat(expected).hasMessageContaining("restart quarantine");
        }
    }
}
