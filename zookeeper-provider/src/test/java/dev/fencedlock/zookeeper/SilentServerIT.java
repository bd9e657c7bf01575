package dev.fencedlock.zookeeper;

import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.await;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitDeleted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * A server that stops answering without dropping the connection ({@link TcpProxy#blackhole()}), for less
 * time than the ZooKeeper client waits before it gives the connection up (two thirds of the
 * session timeout, about 13 s here). Lease checks and releases must not wait that long: they give
 * up after a quarter of the session timeout (5 s here), or when the lease's validity runs out,
 * whichever comes first, so the client keeps its connection and session, and the few lease
 * scheduler threads stay free for the other leases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SilentServerIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);

    private static TestingServer server;
    private static CuratorFramework observer;

    private TcpProxy proxy;
    private TestClient a;
    private String lockName;

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
    void client(TestInfo test) throws Exception {
        proxy = TcpProxy.start("127.0.0.1", server.getPort());
        lockName = "silent:" + test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeClient() throws Exception {
        proxy.pass();
        if (a != null) {
            a.close();
        }
        proxy.close();
    }

    private TestClient connect(Duration leaseTime) throws InterruptedException {
        LockConfig config = ZooKeeperTestSupport.config("127.0.0.1:" + proxy.port(), SESSION_TIMEOUT).toBuilder()
                .leaseTime(leaseTime)
                .build();
        a = ZooKeeperTestSupport.client(config);
        a.awaitConnected();
        return a;
    }

    @Test
    void extendGivesUpWhileTheServerIsSilentAndTheConnectionSurvives() throws Exception {
        connect(Duration.ofSeconds(30));
        Lease lease = a.lock(lockName).acquire(Duration.ofSeconds(10), Duration.ofSeconds(60));

        proxy.blackhole();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(60)))
                .as("cannot tell, rather than waiting until the client drops the connection")
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(lockName)
                .hasMessageContaining("no answer");
        proxy.pass();

        assertNeverReconnected();
        lease.extend(Duration.ofSeconds(60));
        assertThat(lease.isValid()).isTrue();
        lease.close();
    }

    @Test
    void closeReturnsWhileTheServerIsSilentAndTheNodeIsDeletedOnceItAnswers() throws Exception {
        connect(Duration.ofSeconds(30));
        Lease lease = a.lock(lockName).acquire(Duration.ofSeconds(10), Duration.ofSeconds(60));
        String node = ((ZooKeeperLease) lease).nodePath();

        proxy.blackhole();
        lease.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(observer.checkExists().forPath(node))
                .as("the server has not heard of the deletion yet")
                .isNotNull();
        proxy.pass();

        awaitDeleted(observer, node);
        assertNeverReconnected();
        assertThat(a.provider().runtime().heldLeases()).isZero();
    }

    /**
     * More leases than the lease scheduler has threads, all renewing while the server is silent.
     * Each renewal waits at most until its lease's validity runs out, so every lease is reported
     * lost by its own expiry while the connection is still up, not later, when the client gives
     * the connection up.
     */
    @Test
    void renewalsWithoutAnswerLetEveryLeaseRunOutOnTime() throws Exception {
        connect(Duration.ofSeconds(1));
        List<String> reasons = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch lost = new CountDownLatch(moreLeasesThanThreads());
        List<Lease> leases = acquireAll(moreLeasesThanThreads(), reasons, lost);

        proxy.blackhole();
        await(lost, "every lease reported lost while the server was silent");
        assertThat(a.provider().watch().interruptions())
                .as("the connection was never interrupted")
                .isZero();
        proxy.pass();

        assertThat(reasons).allSatisfy(reason -> assertThat(reason).doesNotContain("ZooKeeper connection was"));
        for (Lease lease : leases) {
            awaitDeleted(observer, ((ZooKeeperLease) lease).nodePath());
        }
        assertNeverReconnected();
        try (Lease next = a.lock(lockName + ":0").acquire(Duration.ofSeconds(10))) {
            assertThat(next.token()).isGreaterThan(leases.get(0).token());
        }
    }

    /**
     * The server stays silent until every lease's validity has run out, then answers every
     * renewal it held back: the answers prove that the nodes were there when the renewals were
     * sent, but they come too late. No lease is valid again at any moment, and each is reported
     * lost. The lease time (3 s) leaves a renewal two seconds between its send and the end of
     * validity, less than the five it may wait for an answer, so an implementation that took a
     * late answer would make its lease valid again for up to a second.
     */
    @Test
    void answersThatComeAfterValidityRanOutReviveNoLease() throws Exception {
        connect(Duration.ofSeconds(3));
        List<String> reasons = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch lost = new CountDownLatch(moreLeasesThanThreads());
        List<Lease> leases = acquireAll(moreLeasesThanThreads(), reasons, lost);

        proxy.blackhole();
        for (Lease lease : leases) {
            for (Duration left = lease.remaining(); !left.isZero(); left = lease.remaining()) {
                Thread.sleep(left.toMillis() + 1); // let the lease's validity run out
            }
        }
        proxy.pass();

        long deadline = System.nanoTime() + ZooKeeperTestSupport.EVENT_TIMEOUT.toNanos();
        do {
            for (Lease lease : leases) {
                assertThat(lease.isValid())
                        .as("a lease whose validity ran out, once the held-back answers arrive")
                        .isFalse();
            }
            assertThat(System.nanoTime() - deadline < 0)
                    .as("every lease reported lost within %s", ZooKeeperTestSupport.EVENT_TIMEOUT)
                    .isTrue();
        } while (!lost.await(1, TimeUnit.MILLISECONDS));
        awaitEveryHeldBackAnswer();
        for (Lease lease : leases) {
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1))).isInstanceOf(LeaseLostException.class);
        }
        assertThat(reasons).allSatisfy(reason -> assertThat(reason).doesNotContain("ZooKeeper connection was"));
    }

    /** One more lease than the lease scheduler has threads (see LeaseRuntime). */
    private static int moreLeasesThanThreads() {
        return Math.max(2, Runtime.getRuntime().availableProcessors()) + 1;
    }

    private List<Lease> acquireAll(int count, List<String> reasons, CountDownLatch lost) throws Exception {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Lease lease = a.lock(lockName + ":" + i).acquire(Duration.ofSeconds(10));
            lease.onLost((l, cause) -> {
                reasons.add(cause.getMessage());
                lost.countDown();
            });
            leases.add(lease);
        }
        return leases;
    }

    /**
     * The client kept its first connection: a request sent now is answered on it. A client that
     * had given the connection up would have to reconnect, through the proxy, before it could be.
     */
    private void assertNeverReconnected() throws Exception {
        a.curator().checkExists().forPath("/");
        assertThat(proxy.acceptedConnections()).isEqualTo(1);
    }

    /**
     * Waits until every answer the proxy held back has been handled: the client handles answers
     * in order, on one event thread, so once the answer to a request sent now has arrived, so
     * have all earlier ones.
     */
    private void awaitEveryHeldBackAnswer() throws Exception {
        ZooKeeper zooKeeper = a.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch answered = new CountDownLatch(1);
        zooKeeper.exists("/", false, (rc, path, ctx, stat) -> answered.countDown(), null);
        await(answered, "answer to a request sent after the silence");
    }
}
