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
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What is particular to this backend on a healthy server: tokens in the one token order, attempts
 * leave no node behind, extension asks the server, and the ways to build a client. The shared
 * contract is in {@link ZooKeeperContractIT}; loss and failure cases are in other ITs.
 */
class ZooKeeperLockIT {
    private static TestingServer server;
    private static CuratorFramework observer;

    private static final long EVENT_TIMEOUT_SECONDS = ZooKeeperTestSupport.EVENT_TIMEOUT.toSeconds();

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
    void tokenFollowsTheOneOrderIsRecordedOnTheTokenNodeAndGrowsWithEveryGrant() throws Exception {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            TestClient holder = i % 2 == 0 ? a : b;
            long before = System.currentTimeMillis();
            try (Lease lease = holder.lock(lockName).acquire(Duration.ofSeconds(5))) {
                long after = System.currentTimeMillis();
                String lockPath = holder.lock(lockName).lockPath();
                List<String> nodes = observer.getChildren().forPath(lockPath);
                assertThat(nodes).hasSize(1);
                Stat stat = observer.checkExists().forPath(child(lockPath, nodes.get(0)));
                assertThat(((ZooKeeperLease) lease).czxid()).isEqualTo(stat.getCzxid());
                assertThat(stat.getEphemeralOwner()).isEqualTo(holder.sessionId());
                Stat tokenStat = new Stat();
                byte[] data = observer.getData()
                        .storingStatIn(tokenStat)
                        .forPath(holder.lock(lockName).tokenPath());
                String[] fields = new String(data, StandardCharsets.US_ASCII).split(" ");
                assertThat(fields)
                        .as("the data is the previous token and the czxid of the token node written")
                        .hasSize(2);
                assertThat(Long.parseLong(fields[1])).isEqualTo(tokenStat.getCzxid());
                assertThat(lease.token())
                        .as("the token is next(data, mtime) of the token node")
                        .isEqualTo(TokenOrder.next(Long.parseLong(fields[0]), tokenStat.getMtime()));
                assertThat(lease.token())
                        .as("the server's clock, which is this machine's, is in the high bits")
                        .isBetween(TokenOrder.floor(before), TokenOrder.floor(after + 1) - 1);
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

    /**
     * The server may expire a session, and hand its locks on, once it has heard nothing from the
     * client for the session timeout, however long the lease time. So neither kind of lease is ever
     * valid for longer than the session timeout ahead; checks with the server keep both valid for
     * longer than one session timeout all the same, and the fixed lease still ends at its own
     * lease time, not before.
     */
    @Test
    void validityNeverReachesPastTheSessionTimeoutYetLeasesOutliveIt() throws Exception {
        Duration session = Duration.ofSeconds(4);
        Duration fixedLeaseTime = session.multipliedBy(2);
        try (TestClient shortSession =
                ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), session))) {
            long beforeAcquire = System.nanoTime();
            Lease renewing = shortSession.lock(lockName + ":renewing").acquire(Duration.ofSeconds(5));
            Lease fixed = shortSession.lock(lockName + ":fixed").acquire(Duration.ofSeconds(5), fixedLeaseTime);
            AtomicReference<LeaseLostException> renewingLoss = new AtomicReference<>();
            renewing.onLost((lease, cause) -> renewingLoss.set(cause));
            AtomicReference<LeaseLostException> fixedLoss = new AtomicReference<>();
            AtomicLong fixedLostAt = new AtomicLong();
            CountDownLatch fixedLost = new CountDownLatch(1);
            fixed.onLost((lease, cause) -> {
                fixedLostAt.set(System.nanoTime());
                fixedLoss.set(cause);
                fixedLost.countDown();
            });
            assertThat(renewing.remaining())
                    .as("auto-renewing, 30 s lease time")
                    .isLessThanOrEqualTo(session);
            assertThat(fixed.remaining()).as("fixed, 8 s lease time").isLessThanOrEqualTo(session);

            Thread.sleep(session.multipliedBy(3).dividedBy(2).toMillis()); // let one session timeout pass
            assertThat(renewing.isValid()).isTrue();
            assertThat(fixed.isValid()).isTrue();
            assertThat(renewing.remaining()).isLessThanOrEqualTo(session);
            assertThat(fixed.remaining()).isLessThanOrEqualTo(session);
            assertThat(b.lock(lockName + ":fixed").tryAcquire(Duration.ZERO)).isEmpty();

            await(fixedLost, "the fixed lease running out");
            assertThat(fixedLostAt.get() - beforeAcquire)
                    .as("the fixed lease ended no earlier than its lease time")
                    .isGreaterThanOrEqualTo(fixedLeaseTime.toNanos());
            assertThat(fixedLoss.get()).hasMessageContaining("fixed lease time");
            assertThat(renewing.isValid()).isTrue();
            assertThat(renewingLoss.get()).isNull();
            renewing.close();
        }
    }

    /**
     * A connection interruption that arrives after the recipe granted the lock and the grant was
     * checked, but before the lease is handed out, revokes the lease at once. Such a grant is
     * thrown away (its node deleted) and the acquisition goes on: the caller never gets a lease
     * that is lost before it has it, and the client does not count one as held. The watch here
     * delivers a SUSPENDED just after the acquisition read its interruption count for the check,
     * which therefore sees none.
     */
    @Test
    void grantRevokedBeforeItIsHandedOutIsDiscardedAndNotCounted() throws Exception {
        AtomicBoolean interrupted = new AtomicBoolean();
        ConnectionWatch interruptAfterTheCheck = new ConnectionWatch() {
            @Override
            long interruptions() {
                long count = super.interruptions();
                if (tracked() > 0 && interrupted.compareAndSet(false, true)) {
                    stateChanged(null, ConnectionState.SUSPENDED);
                }
                return count;
            }
        };
        LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10));
        try (TestClient c = ZooKeeperTestSupport.client(config, interruptAfterTheCheck)) {
            Lease lease = c.lock(lockName).acquire(Duration.ofSeconds(10));
            assertThat(interrupted).isTrue();
            assertThat(lease.isValid()).isTrue();
            assertThat(c.provider().discardedGrants()).isEqualTo(1);
            assertThat(c.provider().runtime().heldLeases()).isEqualTo(1);
            awaitChildren(observer, c.lock(lockName).lockPath(), nodes -> nodes.size() == 1);
            lease.close();
            assertThat(c.provider().runtime().heldLeases()).isZero();
        }
        try (Lease next = a.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(next.isValid()).isTrue();
        }
    }

    /**
     * A grant whose re-check fails after its lease was tracked by the connection watch (here the
     * check is interrupted) is discarded by closing the lease, so the watch lets go of it: a grant
     * discarded by deleting its node alone stayed in the watch for the client's lifetime.
     */
    @Test
    void grantDiscardedAfterItWasTrackedLeavesNothingInTheConnectionWatch() throws Exception {
        AtomicBoolean fired = new AtomicBoolean();
        ConnectionWatch failTheRecheck = new ConnectionWatch() {
            private volatile boolean bumped;

            @Override
            void track(ZooKeeperLease lease) {
                super.track(lease);
                if (fired.compareAndSet(false, true)) {
                    bumped = true; // the grant must be re-checked with the server...
                    Thread.currentThread().interrupt(); // ...and that check fails
                }
            }

            @Override
            long interruptions() {
                return super.interruptions() + (bumped ? 1 : 0);
            }
        };
        LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10));
        try (TestClient c = ZooKeeperTestSupport.client(config, failTheRecheck)) {
            ZooKeeperFencedLock lock = c.lock(lockName);
            assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(10))).isInstanceOf(InterruptedException.class);
            assertThat(fired).isTrue();
            assertThat(c.provider().discardedGrants()).isEqualTo(1);
            assertThat(failTheRecheck.tracked())
                    .as("leases left in the connection watch")
                    .isZero();
            assertThat(c.provider().runtime().heldLeases()).isZero();
            awaitChildren(observer, lock.lockPath(), nodes -> nodes.isEmpty());
        }
    }

    /**
     * A fixed lease shorter than a round trip has run out before the grant can be handed out, so
     * every grant is discarded. The acquisition stops at its deadline with a timeout that says
     * why, instead of trying again for ever, and leaves no node behind.
     */
    @Test
    void grantsThatRunOutBeforeTheyAreHandedOutEndTheAcquisitionAtItsDeadline() throws Exception {
        ZooKeeperFencedLock lock = a.lock(lockName);
        Future<Lease> attempt = threads.submit(() -> lock.acquire(Duration.ofMillis(500), Duration.ofNanos(1)));
        assertThatThrownBy(() -> attempt.get(EVENT_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .as("the acquisition ends (a TimeoutException here means it never returned)")
                .hasCauseInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("a grant was discarded")
                .hasMessageContaining("ran out before it could be handed out");
        assertThat(a.provider().discardedGrants()).isPositive();
        awaitChildren(observer, lock.lockPath(), nodes -> nodes.isEmpty());
        try (Lease next = b.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow()) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void extendSucceedsWhileTheNodeExistsAndReportsLossOnceItIsGone() throws Exception {
        ZooKeeperFencedLock lock = a.lock(lockName);
        Lease lease = lock.acquire(Duration.ofSeconds(5), Duration.ofSeconds(2));
        lease.extend(Duration.ofSeconds(20));
        assertThat(lease.remaining())
                .as("past the original lease time, but no further than the 10 s session")
                .isGreaterThan(Duration.ofSeconds(2))
                .isLessThanOrEqualTo(Duration.ofSeconds(10));

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
        LockClient borrowed = ZooKeeperLocks.create(
                ZooKeeperSettings.builder().curator(observer).build());
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
        LockClient client = ZooKeeperLocks.create(
                ZooKeeperSettings.builder().curator(namespaced).build());
        try (Lease lease = client.lock(lockName).acquire(Duration.ofSeconds(5), Duration.ofSeconds(2))) {
            String lockPath = "/tenant-a/fencedlock/" + ZNodeNames.encode(lockName);
            String node = child(
                    lockPath,
                    awaitChildren(observer, lockPath, n -> n.size() == 1).get(0));
            assertThat(((ZooKeeperLease) lease).czxid())
                    .isEqualTo(observer.checkExists().forPath(node).getCzxid());
            assertThat(observer.checkExists()
                            .forPath("/tenant-a/fencedlock/" + ZooKeeperLocks.TOKENS_NODE + "/"
                                    + ZNodeNames.encode(lockName)))
                    .as("the token node is in the namespace too")
                    .isNotNull();
            lease.extend(Duration.ofSeconds(10));
            assertThat(lease.remaining())
                    .as("past the 2 s lease, up to the observer's 10 s session bound")
                    .isGreaterThan(Duration.ofSeconds(3));
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
                .set(ZooKeeperSettings.CONNECT, server.getConnectString())
                .set(ZooKeeperSettings.BASE_PATH, "/fencedlock-it/service-loader")
                .build();
        try (LockClient client = LockClient.create(config);
                Lease lease = client.lock(lockName).acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
            assertThat(observer.getChildren().forPath("/fencedlock-it/service-loader"))
                    .containsExactlyInAnyOrder(ZNodeNames.encode(lockName), ZooKeeperLocks.TOKENS_NODE);
        }
    }
}
