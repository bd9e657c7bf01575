package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.BackendStatus.NodeState;
import dev.fencedlock.BackendStatus.State;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisSentinelGroup;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RedlockProvider#status} on real nodes: frozen, quarantined, a Sentinel group's master, and
 * that it writes nothing.
 */
class RedlockStatusIT {

    private static List<NodeState> states(BackendStatus status) {
        return status.nodes().stream().map(BackendStatus.Node::state).toList();
    }

    private static TestClient client(RedisServers servers, String key, Duration value) {
        return TestClient.create(TestClient.config(servers).set(key, value).build());
    }

    @Test
    void aFrozenNodeIsFailingAndTheBackendCanGrantUntilAMajorityIsFrozen() throws Exception {
        try (RedisServers servers = RedisServers.start(3);
                TestClient client = client(servers, RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(500))) {
            BackendStatus healthy = client.provider().status("redlock");
            assertThat(healthy.state()).isEqualTo(State.UP);
            assertThat(states(healthy)).containsOnly(NodeState.ANSWERING);
            for (int i = 0; i < servers.size(); i++) {
                assertThat(healthy.nodes().get(i).address())
                        .startsWith(servers.uris().get(i));
            }

            servers.get(0).pause();
            BackendStatus oneFrozen = client.provider().status("redlock");
            assertThat(oneFrozen.state()).isEqualTo(State.DEGRADED);
            assertThat(oneFrozen.state().canGrant()).isTrue();
            assertThat(states(oneFrozen)).containsExactly(NodeState.FAILING, NodeState.ANSWERING, NodeState.ANSWERING);
            assertThat(oneFrozen.nodes().get(0).detail()).isNotEmpty();

            servers.get(1).pause();
            BackendStatus majorityFrozen = client.provider().status("redlock");
            assertThat(majorityFrozen.state()).isEqualTo(State.DOWN);
            assertThat(states(majorityFrozen))
                    .containsExactly(NodeState.FAILING, NodeState.FAILING, NodeState.ANSWERING);

            servers.get(0).resume();
            servers.get(1).resume();
            Await.until(
                    "every node answering again",
                    Duration.ofSeconds(30),
                    () -> client.provider().status("redlock").state() == State.UP);
            for (RedisServerProcess server : servers.all()) {
                assertThat(server.command("DBSIZE"))
                        .as("a status call writes no key")
                        .isEqualTo(0L);
            }
        }
    }

    @Test
    void justStartedNodesAreQuarantinedAndTheBackendIsDown() {
        try (RedisServers servers = RedisServers.start(3);
                TestClient client = client(servers, RedlockSettings.RESTART_QUARANTINE, Duration.ofMinutes(10))) {
            BackendStatus status = client.provider().status("redlock");
            assertThat(status.state()).isEqualTo(State.DOWN);
            assertThat(states(status)).containsOnly(NodeState.QUARANTINED);
            assertThat(status.nodes())
                    .allSatisfy(node -> assertThat(node.detail()).contains("restart quarantine"));
        }
    }

    @Test
    void aSentinelGroupReportsItsMasterAndIsDownWhileTheMasterIsFrozen() throws Exception {
        // no replica and a minute's down-after: nothing fails over while the master is frozen
        try (RedisSentinelGroup group = RedisSentinelGroup.start("status", 0, 2, Duration.ofMinutes(1))) {
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.SENTINEL_MASTER, group.masterName())
                    .set(RedlockSettings.SENTINEL_NODES, group.sentinelNodes())
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(500))
                    .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                    .build();
            try (TestClient client = TestClient.create(config)) {
                BackendStatus up = Await.value(
                        "the Sentinels' master answering",
                        Duration.ofSeconds(10),
                        () -> client.provider().status("redlock"),
                        status -> status.state() == State.UP);
                assertThat(up.nodes()).singleElement().satisfies(node -> {
                    assertThat(node.address()).contains("'status'");
                    assertThat(node.detail())
                            .isEqualTo("master at " + group.master().host() + ":"
                                    + group.master().port());
                });

                group.master().pause();
                BackendStatus frozen = client.provider().status("redlock");
                assertThat(frozen.state()).isEqualTo(State.DOWN);
                assertThat(frozen.nodes()).singleElement().satisfies(node -> {
                    assertThat(node.state()).isEqualTo(NodeState.FAILING);
                    assertThat(node.detail()).startsWith("master at ");
                });
                group.master().resume();
                Await.until(
                        "the master answering again",
                        Duration.ofSeconds(10),
                        () -> client.provider().status("redlock").state() == State.UP);
            }
        }
    }
}
