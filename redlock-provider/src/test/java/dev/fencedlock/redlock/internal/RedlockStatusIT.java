package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.BackendStatus.NodeState;
import dev.fencedlock.BackendStatus.State;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RedlockProvider#status} on real nodes: frozen, quarantined, and that it writes nothing. */
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
}
