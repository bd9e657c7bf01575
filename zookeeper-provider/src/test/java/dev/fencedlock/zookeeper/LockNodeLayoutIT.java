package dev.fencedlock.zookeeper;

import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitChildren;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitDeleted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockNames;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where lock nodes live: one container znode per lock name directly under the base path, which the
 * server deletes when it is empty. The server here checks containers every 100 ms, so that the
 * reaping that resets sequential suffixes happens within the test.
 */
class LockNodeLayoutIT {
    private static final String CONTAINER_INTERVAL = "znode.container.checkIntervalMs";
    private static final String BASE = "/layout-it";

    private static TestingServer server;
    private static CuratorFramework observer;
    private TestClient a;
    private TestClient b;

    @BeforeAll
    static void startServer() throws Exception {
        System.setProperty(CONTAINER_INTERVAL, "100");
        try {
            server = ZooKeeperTestSupport.startServer();
        } finally {
            System.clearProperty(CONTAINER_INTERVAL);
        }
        observer = ZooKeeperTestSupport.observer(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        observer.close();
        server.close();
    }

    @BeforeEach
    void clients() {
        LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10)).toBuilder()
                .set(ZooKeeperSettings.BASE_PATH, BASE)
                .build();
        a = ZooKeeperTestSupport.client(config);
        b = ZooKeeperTestSupport.client(config);
    }

    @AfterEach
    void closeClients() {
        a.close();
        b.close();
    }

    @Test
    void tokenKeepsGrowingWhenTheReapedContainerRestartsTheSequence() throws Exception {
        ZooKeeperFencedLock lock = a.lock("reaped");
        long previousToken = Long.MIN_VALUE;
        for (int round = 0; round < 3; round++) {
            String node;
            long token;
            try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
                token = lease.token();
                node = awaitChildren(observer, lock.lockPath(), n -> n.size() == 1)
                        .get(0);
            }
            awaitDeleted(observer, lock.lockPath());
            assertThat(node)
                    .as("the sequential suffix starts again from zero in each new container")
                    .endsWith("-lock-0000000000");
            assertThat(token).isGreaterThan(previousToken);
            previousToken = token;
        }
    }

    @Test
    void namesThatPathSyntaxForbidsAreSeparateLocksEachDirectlyUnderTheBasePath() throws Exception {
        List<String> names = List.of(
                "a",
                "a/b",
                "a/b/c",
                "/a",
                ".",
                "..",
                "a%2Fb",
                "zookeeper",
                "锁/🔒",
                "x".repeat(LockNames.MAX_LENGTH),
                "🔒".repeat(LockNames.MAX_LENGTH / 2));
        List<Lease> leases = new ArrayList<>();
        try {
            for (String name : names) {
                leases.add(a.lock(name).tryAcquire(Duration.ZERO).orElseThrow());
            }
            List<String> expected = names.stream().map(ZNodeNames::encode).toList();
            assertThat(observer.getChildren().forPath(BASE))
                    .containsExactlyInAnyOrderElementsOf(concat(expected, ZooKeeperLocks.TOKENS_NODE));
            assertThat(observer.getChildren().forPath(BASE + "/" + ZooKeeperLocks.TOKENS_NODE))
                    .as("one token node per lock, under the same encoded name")
                    .containsExactlyInAnyOrderElementsOf(expected);
            for (String name : names) {
                assertThat(b.lock(name).tryAcquire(Duration.ZERO))
                        .as("lock '%s' is held", name)
                        .isEmpty();
                assertThat(observer.getChildren().forPath(a.lock(name).lockPath()))
                        .as("only lock nodes under the container of '%s'", name)
                        .singleElement()
                        .asString()
                        .contains("-lock-");
            }
        } finally {
            leases.forEach(Lease::close);
        }
        for (String name : names) {
            try (Lease lease = b.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void nameWithoutAUtf8FormIsRejectedBeforeAnyRequest() {
        assertThatThrownBy(() -> a.client().lock("half a pair \uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
    }

    private static List<String> concat(List<String> names, String more) {
        List<String> all = new ArrayList<>(names);
        all.add(more);
        return all;
    }
}
