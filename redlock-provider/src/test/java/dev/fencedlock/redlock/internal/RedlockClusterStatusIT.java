package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.BackendStatus.NodeState;
import dev.fencedlock.BackendStatus.State;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RedlockProvider#status} on a real Redis Cluster (node timeout 2 s): one entry per master
 * with its slots, and the backend not UP while a master's slots are uncovered.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedlockClusterStatusIT {
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static TestClient client(RedisCluster cluster) {
        LockConfig config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.CLUSTER_NODES, cluster.seeds())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(500))
                .leaseTime(Duration.ofSeconds(10))
                .build();
        return TestClient.create(config);
    }

    private static BackendStatus.Node entryOf(BackendStatus status, RedisServerProcess master) {
        return status.nodes().stream()
                .filter(node -> node.address().contains(":" + master.port() + "/"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no entry for " + master + " in " + status));
    }

    @Test
    void aFrozenMasterWithoutReplicaMakesTheClusterDownUntilItAnswersAgain() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3);
                TestClient client = client(cluster)) {
            BackendStatus healthy = client.provider().status("redlock");
            assertThat(healthy.state()).isEqualTo(State.UP);
            assertThat(healthy.nodes()).hasSize(3);
            assertThat(healthy.nodes()).extracting(BackendStatus.Node::state).containsOnly(NodeState.ANSWERING);
            assertThat(entryOf(healthy, cluster.get(0)).detail()).isEqualTo("slots 0-5460");
            assertThat(entryOf(healthy, cluster.get(2)).detail()).isEqualTo("slots 10922-16383");

            RedisServerProcess frozen = cluster.get(2);
            frozen.pause();
            BackendStatus oneDown = client.provider().status("redlock");
            assertThat(oneDown.state()).isEqualTo(State.DOWN);
            assertThat(oneDown.state().canGrant()).isFalse();
            assertThat(entryOf(oneDown, frozen).state()).isEqualTo(NodeState.FAILING);
            assertThat(entryOf(oneDown, frozen).detail()).startsWith("slots 10922-16383: ");

            // once the others mark it failed, the cluster refuses every keyed call
            BackendStatus clusterFail = Await.value(
                    "the answering masters report the cluster down",
                    SETTLE,
                    () -> client.provider().status("redlock"),
                    status -> entryOf(status, cluster.get(0)).state() == NodeState.FAILING);
            assertThat(clusterFail.state()).isEqualTo(State.DOWN);
            assertThat(entryOf(clusterFail, cluster.get(0)).detail()).contains("CLUSTERDOWN");

            frozen.resume();
            BackendStatus back = Await.value(
                    "every master answering again",
                    SETTLE,
                    () -> client.provider().status("redlock"),
                    status -> status.state() == State.UP);
            assertThat(back.nodes()).extracting(BackendStatus.Node::state).containsOnly(NodeState.ANSWERING);
            for (RedisServerProcess master : cluster.all()) {
                assertThat(master.command("DBSIZE"))
                        .as("a status call writes no key")
                        .isEqualTo(0L);
            }
        }
    }

    @Test
    void aKilledMasterIsDownUntilItsReplicaIsPromotedThenTheReplicaIsReported() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3);
                TestClient client = client(cluster)) {
            RedisServerProcess master = cluster.get(1);
            RedisServerProcess replica = cluster.addReplica(master);
            assertThat(client.provider().status("redlock").state()).isEqualTo(State.UP);

            master.kill();
            BackendStatus killed = client.provider().status("redlock");
            assertThat(killed.state()).isEqualTo(State.DOWN);
            assertThat(entryOf(killed, master).state()).isEqualTo(NodeState.FAILING);

            BackendStatus promoted = Await.value(
                    "the replica promoted and reported",
                    SETTLE,
                    () -> client.provider().status("redlock"),
                    status -> status.state() == State.UP);
            assertThat(entryOf(promoted, replica).detail()).isEqualTo("slots 5461-10921");
            assertThat(promoted.nodes())
                    .extracting(BackendStatus.Node::address)
                    .noneMatch(address -> address.contains(":" + master.port() + "/"));
            assertThat(List.copyOf(promoted.nodes())).hasSize(3);
        }
    }
}
