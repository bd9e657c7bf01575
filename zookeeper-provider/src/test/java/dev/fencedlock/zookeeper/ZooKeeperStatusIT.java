package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.BackendStatus.NodeState;
import dev.fencedlock.BackendStatus.State;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** {@link ZooKeeperLockProvider#status} follows the Curator connection of a real server. */
class ZooKeeperStatusIT {

    @Test
    void connectedWhileTheServerRunsThenDownOnceItStops() throws Exception {
        try (TestingServer server = ZooKeeperTestSupport.startServer();
                ZooKeeperTestSupport.TestClient client = ZooKeeperTestSupport.client(
                        ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(2)))) {
            client.awaitConnected();
            BackendStatus up = client.client().status().get(0);
            assertThat(up.backend()).isEqualTo("zookeeper");
            assertThat(up.state()).isEqualTo(State.UP);
            assertThat(up.nodes()).singleElement().satisfies(node -> {
                assertThat(node.state()).isEqualTo(NodeState.CONNECTED);
                assertThat(node.address()).isEqualTo(server.getConnectString());
            });

            server.stop();
            Await.until(
                    "status no longer connected",
                    ZooKeeperTestSupport.EVENT_TIMEOUT,
                    () -> client.client().status().get(0).state() == State.DOWN);
            assertThat(client.client().status().get(0).nodes().get(0).state())
                    .isIn(NodeState.SUSPENDED, NodeState.LOST);
            Await.until(
                    "session presumed lost",
                    ZooKeeperTestSupport.EVENT_TIMEOUT,
                    () -> client.client().status().get(0).nodes().get(0).state() == NodeState.LOST);
        }
    }
}
