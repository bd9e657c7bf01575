package dev.fencedlock.zookeeper;

import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitChildren;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * A three-server ensemble losing servers while two clients hold and await leases. One cluster is
 * shared by the tests (starting one is slow); each test restarts what it killed and waits until
 * the ensemble serves on all three servers again.
 */
class ZooKeeperClusterIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(8);

    private static TestingCluster cluster;
    private static CuratorFramework observer;

    private final List<InstanceSpec> killed = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestClient a;
    private TestClient b;
    private String lockName;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ZooKeeperServers.cluster(3);
        cluster.start();
        for (InstanceSpec spec : cluster.getInstances()) {
            awaitServing(spec);
        }
        observer = ZooKeeperTestSupport.observer(cluster.getConnectString());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        observer.close();
        cluster.close();
    }

    @BeforeEach
    void clients(TestInfo test) throws InterruptedException {
        LockConfig config = ZooKeeperTestSupport.config(cluster.getConnectString(), SESSION_TIMEOUT);
        a = ZooKeeperTestSupport.client(config);
        b = ZooKeeperTestSupport.client(config);
        a.awaitConnected();
        b.awaitConnected();
        lockName = "cluster:" + test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void restoreEnsemble() throws Exception {
        threads.shutdownNow();
        a.close();
        b.close();
        for (InstanceSpec spec : killed) {
            cluster.restartServer(spec);
        }
        for (InstanceSpec spec : killed) {
            awaitServing(spec);
        }
    }

    @Test
    void killingTheHoldersServerRevokesItsLeaseBeforeTheWaiterIsGranted() throws Exception {
        Lease held = a.lock(lockName).acquire(Duration.ofSeconds(10));
        LossProbe probe = new LossProbe(held);
        Future<Lease> waiter = threads.submit(() -> b.lock(lockName).acquire(Duration.ofSeconds(90)));
        awaitChildren(observer, a.lock(lockName).lockPath(), nodes -> nodes.size() == 2);

        kill(cluster.findConnectionInstance(a.curator().getZookeeperClient().getZooKeeper()));

        Lease next = waiter.get(90, TimeUnit.SECONDS);
        assertThat(probe.reported())
                .as("A heard of its loss before B was granted")
                .isTrue();
        assertThat(probe.cause()).hasMessageContaining("ZooKeeper connection was");
        assertThat(probe.cause().reason()).isEqualTo(LeaseLostException.Reason.SESSION_LOST);
        assertThat(held.isValid()).isFalse();
        assertThat(next.token()).isGreaterThan(held.token());
        assertThat(a.lock(lockName).tryAcquire(Duration.ZERO)).isEmpty();

        next.close();
        try (Lease again = a.lock(lockName).acquire(Duration.ofSeconds(30))) {
            assertThat(again.token()).isGreaterThan(next.token());
        }
    }

    @Test
    void killingTheLeaderRevokesEveryLeaseAndLaterTokensAreLarger() throws Exception {
        String other = lockName + ":other";
        Lease aHeld = a.lock(lockName).acquire(Duration.ofSeconds(10));
        Lease bHeld = b.lock(other).acquire(Duration.ofSeconds(10));
        LossProbe aProbe = new LossProbe(aHeld);
        LossProbe bProbe = new LossProbe(bHeld);
        Future<Lease> bWaiter = threads.submit(() -> b.lock(lockName).acquire(Duration.ofSeconds(90)));
        awaitChildren(observer, a.lock(lockName).lockPath(), nodes -> nodes.size() == 2);

        kill(leader());

        aProbe.await();
        bProbe.await();
        assertThat(aHeld.isValid()).isFalse();
        assertThat(bHeld.isValid()).isFalse();

        Lease bOnA = bWaiter.get(90, TimeUnit.SECONDS);
        assertThat(bOnA.token()).isGreaterThan(aHeld.token());
        assertThat(a.lock(lockName).tryAcquire(Duration.ZERO)).isEmpty();
        try (Lease aOnOther = a.lock(other).acquire(Duration.ofSeconds(30))) {
            assertThat(aOnOther.token()).isGreaterThan(bHeld.token());
            assertThat(((ZooKeeperLease) aOnOther).czxid() >>> 32)
                    .as("node created in a new epoch (high half of the zxid) after the leader change")
                    .isGreaterThan(((ZooKeeperLease) bHeld).czxid() >>> 32);
        }
        bOnA.close();
    }

    private void kill(InstanceSpec spec) throws Exception {
        assertThat(spec).as("server to kill").isNotNull();
        assertThat(cluster.killServer(spec)).isTrue();
        killed.add(spec);
    }

    private static InstanceSpec leader() {
        return ZooKeeperServers.leader(cluster);
    }

    static String mode(InstanceSpec spec) {
        return ZooKeeperServers.status(spec);
    }

    static void awaitServing(InstanceSpec spec) throws InterruptedException {
        ZooKeeperServers.awaitServing(spec, ZooKeeperTestSupport.EVENT_TIMEOUT);
    }

    /** Records the first loss report of a lease. */
    private static final class LossProbe {
        private final CountDownLatch lost = new CountDownLatch(1);
        private final AtomicReference<LeaseLostException> cause = new AtomicReference<>();

        LossProbe(Lease lease) {
            lease.onLost((l, e) -> {
                cause.set(e);
                lost.countDown();
            });
        }

        boolean reported() {
            return lost.getCount() == 0;
        }

        LeaseLostException cause() {
            return cause.get();
        }

        void await() throws InterruptedException {
            ZooKeeperTestSupport.await(lost, "loss report");
        }
    }
}
