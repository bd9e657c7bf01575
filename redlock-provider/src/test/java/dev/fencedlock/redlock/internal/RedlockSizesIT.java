package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Deployments other than five nodes: one node, seven nodes, and an even count. */
class RedlockSizesIT {

    @Test
    void oneNodeIsTheSingleInstanceLock() throws Exception {
        try (RedisServers servers = RedisServers.start(1);
                TestClient client = TestClient.create(TestClient.config(servers).build())) {
            Quorums.assertEveryCombinationOfTakenNodes(servers, client, "sizes:one");
            assertTokensGrow(client, "sizes:one:tokens");
            servers.get(0).kill();
            assertThatThrownBy(() -> client.lock("sizes:one:down").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("0 of 1 nodes answered, 1 needed");
        }
    }

    @Test
    void sevenNodesNeedFourAndSurviveThreeFailures() throws Exception {
        try (RedisServers servers = RedisServers.start(7);
                TestClient client = TestClient.create(TestClient.config(servers).build())) {
            Quorums.assertEveryCombinationOfTakenNodes(servers, client, "sizes:seven");
            assertTokensGrow(client, "sizes:seven:tokens");
            for (int node = 0; node < 3; node++) {
                servers.get(node).kill();
            }
            client.lock("sizes:seven:three-down")
                    .tryAcquire(Duration.ZERO)
                    .orElseThrow()
                    .close();
            servers.get(3).kill();
            assertThatThrownBy(() -> client.lock("sizes:seven:four-down").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("3 of 7 nodes answered, 4 needed");
        }
    }

    @Test
    void anEvenNumberOfNodesWorksWithAStrictMajority() throws Exception {
        try (RedisServers servers = RedisServers.start(4);
                TestClient client = TestClient.create(TestClient.config(servers).build())) {
            Quorums.assertEveryCombinationOfTakenNodes(servers, client, "sizes:four");
        }
    }

    private static void assertTokensGrow(TestClient client, String name) throws InterruptedException {
        long previous = 0;
        for (int i = 0; i < 10; i++) {
            try (Lease lease = client.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(lease.token()).isGreaterThan(previous);
                previous = lease.token();
            }
        }
    }
}
