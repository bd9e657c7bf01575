package dev.fencedlock.zookeeper;

import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.await;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitChildren;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.child;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What is particular to this backend on a healthy server: tokens are lock-node czxids, attempts
 * leave no node behind, extension asks the server, and the ways to build a client. The shared
 * contract is in {@link ZooKeeperContractIT}; loss and failure cases are in other ITs.
 */
class ZooKeeperLockIT {
    private static TestingServer server;
    private static CuratorFramework observer;

    private TestClient a;
    private TestClient b;
    private String lockName;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        observer = ZooKeeperTestSupport.observer(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        observer.close();
        server.close();
    }

    @BeforeEach
    void clients(TestInfo test) {
        LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10));
        a = ZooKeeperTestSupport.client(config);
        b = ZooKeeperTestSupport.client(config);
        lockName = "it:" + test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeClients() {
        threads.shutdownNow();
        a.close();
        b.close();
    }

    @Test
    void tokenIsTheLockNodesCzxidAndGrowsWithEveryGrant() throws Exception {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            TestClient holder = i % 2 == 0 ? a : b;
            try (Lease lease = holder.lock(lockName).acquire(Duration.ofSeconds(5))) {
                String lockPath = holder.lock(lockName).lockPath();
                List<String> nodes = observer.getChildren().forPath(lockPath);
                assertThat(nodes).hasSize(1);
                Stat stat = observer.checkExists().forPath(child(lockPath, nodes.get(0)));
                assertThat(lease.token()).isEqualTo(stat.getCzxid());
                assertThat(stat.getEphemeralOwner()).isEqualTo(holder.sessionId());
                assertThat(lease.token()).isGreaterThan(previous);
                previous = lease.token();
            }
        }
    }

    @Test
    void secondAcquireFromTheHoldingThreadWaitsLikeAnyOther() throws Exception {
        ZooKeeperFencedLock lock = a.lock(lockName);
        try (Lease held = lock.acquire(Duration.ofSeconds(5))) {
            assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(lock.tryAcquire(Duration.ofMillis(300))).isEmpty();
            assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(lockName)
                    .hasMessageContaining("not first in line");
            assertThat(held.isValid()).isTrue();
            assertThat(observer.getChildren().forPath(lock.lockPath()))
                    .as("timed-out attempts leave no lock node behind")
                    .hasSize(1);
        }
        try (Lease again = lock.tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(again.isValid()).isTrue();
        }
    }

    @Test
    void fixedLeaseExpiresOnTimeDeletesItsNodeAndLetsTheNextHolderIn() throws Exception {
        Lease fixed = a.lock(lockName).acquire(Duration.ofSeconds(5), Duration.ofMillis(500));
        CountDownLatch lost = new CountDownLatch(1);
        fixed.onLost((lease, cause) -> lost.countDown());
        try (Lease next = b.lock(lockName).acquire(Duration.ofSeconds(20))) {
            assertThat(fixed.isValid())
                    .as("the next grant comes only after the fixed lease ran out")
                    .isFalse();
            assertThat(next.token()).isGreaterThan(fixed.token());
            await(lost, "onLost for the expired fixed lease");
            assertThat(observer.getChildren().forPath(b.lock(lockName).lockPath()))
                    .hasSize(1);
        }
        fixed.close();
    }

    @Test
    void extendSucceedsWhileTheNodeExistsAndReportsLossOnceItIsGone() throws Exception {
        ZooKeeperFencedLock lock = a.lock(lockName);
        Lease lease = lock.acquire(Duration.ofSeconds(5), Duration.ofSeconds(2));
        lease.extend(Duration.ofSeconds(20));
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(10));

        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> lost.countDown());
        String node =
                awaitChildren(observer, lock.lockPath(), c -> c.size() == 1).get(0);
        observer.delete().forPath(child(lock.lockPath(), node));

        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(20))).isInstanceOf(LeaseLostException.class);
        assertThat(lease.isValid()).isFalse();
        await(lost, "onLost after the node was deleted");
        try (Lease other = b.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(other.token()).isGreaterThan(lease.token());
        }
        lease.close();
    }

    @Test
    void interruptedWaiterThrowsAndLeavesNoNodeBehind() throws Exception {
        ZooKeeperFencedLock lock = a.lock(lockName);
        try (Lease held = lock.acquire(Duration.ofSeconds(5))) {
            CountDownLatch started = new CountDownLatch(1);
            Future<Optional<Lease>> waiter = threads.submit(() -> {
                started.countDown();
                return b.lock(lockName).tryAcquire(Duration.ofSeconds(60));
            });
            await(started, "waiter started");
            awaitChildren(observer, lock.lockPath(), c -> c.size() == 2);
            threads.shutdownNow();
            assertThatThrownBy(() -> waiter.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
            awaitChildren(observer, lock.lockPath(), c -> c.size() == 1);
            assertThat(held.isValid()).isTrue();
        }
        try (Lease next = b.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void clientOnABorrowedCuratorLeavesItOpen() throws Exception {
        LockClient borrowed = ZooKeeperLocks.newClient(observer);
        Lease lease = borrowed.lock(lockName).acquire(Duration.ofSeconds(5));
        assertThat(a.lock(lockName).tryAcquire(Duration.ZERO)).isEmpty();
        borrowed.close();
        assertThat(lease.isValid()).as("closing the client releases its leases").isFalse();
        assertThat(observer.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        try (Lease next = a.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void clientOnANamespacedCuratorKeepsItsNodesInTheNamespace() throws Exception {
        CuratorFramework namespaced = observer.usingNamespace("tenant-a");
        LockClient client = ZooKeeperLocks.newClient(namespaced);
        try (Lease lease = client.lock(lockName).acquire(Duration.ofSeconds(5), Duration.ofSeconds(2))) {
            String lockPath = "/tenant-a/fencedlock/" + ZNodeNames.encode(lockName);
            String node = child(
                    lockPath,
                    awaitChildren(observer, lockPath, n -> n.size() == 1).get(0));
            assertThat(lease.token())
                    .isEqualTo(observer.checkExists().forPath(node).getCzxid());
            lease.extend(Duration.ofSeconds(10));
            assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(5));
            lease.close();
            assertThat(observer.checkExists().forPath(node)).isNull();
        } finally {
            client.close();
        }
    }

    @Test
    void serviceLoaderFindsTheBackendFromConfigurationAlone() throws Exception {
        LockConfig config = LockConfig.builder()
                .backend("zookeeper")
                .zookeeperConnect(server.getConnectString())
                .zookeeperBasePath("/fencedlock-it/service-loader")
                .build();
        try (LockClient client = LockClient.create(config);
                Lease lease = client.lock(lockName).acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
            assertThat(observer.getChildren().forPath("/fencedlock-it/service-loader"))
                    .containsExactly(ZNodeNames.encode(lockName));
        }
    }
}
