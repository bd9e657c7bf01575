package dev.fencedlock.testkit.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

class ZooKeeperServersIT {
    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void aStandaloneServerServesAndStopsServingWhenStopped() throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            assertThat(ZooKeeperServers.status("127.0.0.1", server.getPort()))
                    .as("started() returns once the server serves")
                    .contains("Mode: standalone");
            server.stop();
            assertThat(ZooKeeperServers.status("127.0.0.1", server.getPort())).startsWith("not serving: ");
        }
    }

    @Test
    void anEnsembleHasOneLeaderAndElectsAnotherWhenItIsKilled() throws Exception {
        try (TestingCluster cluster = ZooKeeperServers.cluster(3)) {
            cluster.start();
            for (InstanceSpec spec : cluster.getInstances()) {
                ZooKeeperServers.awaitServing(spec, BOUND);
            }
            InstanceSpec leader = ZooKeeperServers.leader(cluster);
            assertThat(cluster.killServer(leader)).isTrue();
            assertThat(ZooKeeperServers.isServing(leader)).isFalse();
            assertThat(ZooKeeperServers.awaitLeader(cluster, BOUND)).isNotEqualTo(leader);
        }
    }

    @Test
    void anEmptyEnsembleIsRefused() {
        assertThatThrownBy(() -> ZooKeeperServers.cluster(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("servers must be at least 1, got 0");
    }
}
