package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients built by {@link ZooKeeperLocks}, one from typed settings and one on the test's own
 * Curator client, on one real ZooKeeper server.
 */
class ZooKeeperLocksIT {
    private static TestingServer server;
    private static CuratorFramework application;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        application = ZooKeeperTestSupport.observer(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        application.close();
        server.close();
    }

    @Test
    void clientsOfTheTypedFactoryExcludeEachOtherAndTheirTokensGrow() throws InterruptedException {
        ZooKeeperSettings settings = ZooKeeperSettings.builder()
                .connect(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(10))
                .basePath("/typed")
                .build();
        LockConfig common = LockConfig.builder()
                .backend(ZooKeeperLocks.BACKEND)
                .set(ZooKeeperSettings.BASE_PATH, "/typed")
                .build();
        try (LockClient owned = ZooKeeperLocks.create(settings);
                LockClient borrowed = ZooKeeperLocks.create(common, application)) {
            long firstToken;
            try (Lease held = owned.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                assertThat(borrowed.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
                firstToken = held.token();
            }
            try (Lease next = borrowed.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(firstToken);
                assertThat(owned.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
            }
        }
        assertThat(application.getState()).isEqualTo(CuratorFrameworkState.STARTED);
    }
}
