package dev.fencedlock.zookeeper;

import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.await;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitChildren;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.awaitDeleted;
import static dev.fencedlock.zookeeper.ZooKeeperTestSupport.child;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions that expire and servers that go away while leases are held or awaited. Each test gets
 * its own server, since several stop it.
 *
 * <p>Session expiry is injected on the client ({@link KillSession}): the client is told its
 * session expired and opens a new one, while the server keeps the old session, and its ephemeral
 * lock nodes, until the old session times out. That is exactly the window in which Curator can
 * mistake the old session's node for its own (CURATOR-604).
 */
class SessionLossIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(8);
    private static final String LOCK = "session-loss";

    private TestingServer server;
    private CuratorFramework observer;
    private TestClient a;
    private TestClient b;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        observer = ZooKeeperTestSupport.observer(server.getConnectString());
        a = ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT));
        b = ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT));
        a.awaitConnected();
        b.awaitConnected();
    }

    @AfterEach
    void stop() throws Exception {
        threads.shutdownNow();
        a.close();
        b.close();
        observer.close();
        server.close();
    }

    /**
     * The holder's session expires. The server may hand the lock on before the holder hears of it
     * (that is ZooKeeper's nature, and why leases carry tokens), so the test checks that the loss
     * is reported and the next grant has a larger token, not the order of the two.
     */
    @Test
    void sessionExpiryWhileHeldIsReportedAndTheLockPassesOnWithALargerToken() throws Exception {
        Lease held = a.lock(LOCK).acquire(Duration.ofSeconds(5));
        AtomicReference<LeaseLostException> loss = new AtomicReference<>();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost((lease, cause) -> {
            loss.set(cause);
            lost.countDown();
        });
        Future<Lease> waiter = threads.submit(() -> b.lock(LOCK).acquire(Duration.ofSeconds(60)));
        awaitChildren(observer, a.lock(LOCK).lockPath(), nodes -> nodes.size() == 2);

        KillSession.kill(a.curator().getZookeeperClient().getZooKeeper());

        Lease next = waiter.get(60, TimeUnit.SECONDS);
        await(lost, "loss reported to the expired holder");
        assertThat(held.isValid()).isFalse();
        assertThat(loss.get()).hasMessageContaining("ZooKeeper connection was");
        assertThat(next.token()).isGreaterThan(held.token());
        assertThatThrownBy(() -> held.extend(Duration.ofSeconds(5))).isInstanceOf(LeaseLostException.class);

        next.close();
        a.awaitConnected();
        try (Lease again = a.lock(LOCK).acquire(Duration.ofSeconds(10))) {
            assertThat(again.token()).isGreaterThan(next.token());
        }
    }

    @Test
    void serverStopRevokesTheLeaseAtOnceAndReconnectionDoesNotReviveIt() throws Exception {
        Lease held = a.lock(LOCK).acquire(Duration.ofSeconds(5));
        long session = a.sessionId();
        AtomicReference<LeaseLostException> loss = new AtomicReference<>();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost((lease, cause) -> {
            loss.set(cause);
            lost.countDown();
        });

        server.stop();
        await(lost, "loss reported on SUSPENDED");
        assertThat(loss.get()).hasMessageContaining("SUSPENDED");
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(() -> a.lock(LOCK).tryAcquire(Duration.ZERO))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(LOCK);
        assertThatThrownBy(() -> a.lock(LOCK).acquire(Duration.ofMillis(300)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(server.getConnectString());

        server.restart();
        a.awaitConnected();
        assertThat(a.sessionId()).as("the session survived the restart").isEqualTo(session);
        assertThat(held.isValid()).as("a lost lease stays lost").isFalse();
        assertThatThrownBy(() -> held.extend(Duration.ofSeconds(5))).isInstanceOf(LeaseLostException.class);
        try (Lease again = b.lock(LOCK).acquire(Duration.ofSeconds(20))) {
            assertThat(again.token()).isGreaterThan(held.token());
        }
        try (Lease again = a.lock(LOCK).acquire(Duration.ofSeconds(20))) {
            assertThat(again.isValid()).isTrue();
        }
    }

    /**
     * CURATOR-604: B holds the lock and A waits in line. A's session expires and A opens a new one,
     * but the server still has A's old lock node. Once B's node is gone, the old node is first in
     * line and the recipe reports a grant on it, although the server will delete it when the old
     * session times out, letting a third client in while A believes it holds the lock. Here each
     * attempt waits in line on the handle it joined with, so A's waiting attempt fails with the old
     * session and A joins again with the new one, behind its old node until the server expires it.
     */
    @Test
    void oldSessionsNodeThatIsFirstInLineIsNeverGranted() throws Exception {
        String lockPath = a.lock(LOCK).lockPath();
        Lease bLease = b.lock(LOCK).acquire(Duration.ofSeconds(5));
        Future<Lease> aWaiter = threads.submit(() -> a.lock(LOCK).acquire(Duration.ofSeconds(60)));
        String staleNode = queuedNode(lockPath, b.sessionId());

        expireOnTheClientOnly(a);
        assertThat(bLease.isValid()).as("B's lease was revoked by the outage").isFalse();

        Lease aLease = aWaiter.get(60, TimeUnit.SECONDS);
        List<String> nodes = observer.getChildren().forPath(lockPath);
        assertThat(nodes).hasSize(1);
        Stat held = observer.checkExists().forPath(child(lockPath, nodes.get(0)));
        assertThat(held.getEphemeralOwner())
                .as("the granted node belongs to A's current session")
                .isEqualTo(a.sessionId());
        assertThat(((ZooKeeperLease) aLease).czxid()).isEqualTo(held.getCzxid());
        assertThat(aLease.token()).isGreaterThan(bLease.token());
        assertThat(observer.checkExists().forPath(staleNode)).isNull();
        assertThat(b.lock(LOCK).tryAcquire(Duration.ZERO)).isEmpty();
        aLease.close();
    }

    /**
     * The same sequence with the plain recipe, to show that the hazard the previous test guards
     * against is real: the recipe grants the lock on a node of the expired session.
     */
    @Test
    void plainRecipeGrantsTheOldSessionsNode() throws Exception {
        String lockPath = a.lock(LOCK).lockPath();
        b.lock(LOCK).acquire(Duration.ofSeconds(5));
        InterProcessMutex raw = new InterProcessMutex(a.curator(), lockPath);
        Future<String> rawWaiter = threads.submit(() -> {
            if (!raw.acquire(60, TimeUnit.SECONDS)) {
                return null;
            }
            return raw.getParticipantNodes().iterator().next();
        });
        String staleNode = queuedNode(lockPath, b.sessionId());

        long oldSession = expireOnTheClientOnly(a);

        String grantedOn = rawWaiter.get(60, TimeUnit.SECONDS);
        assertThat(grantedOn).isEqualTo(staleNode);
        assertThat(observer.checkExists().forPath(staleNode).getEphemeralOwner())
                .isEqualTo(oldSession)
                .isNotEqualTo(a.sessionId());
    }

    /**
     * CURATOR-678: a release whose delete cannot reach the server must not leave a node that
     * blocks later acquisitions while the session lives on. The client here has a retry budget
     * (two tries, 300 ms connection timeout) far shorter than the outage, so a plain delete would
     * give up while the server is down and the node would outlive the restart with its session.
     */
    @Test
    void releaseWhoseDeleteFailsDoesNotBlockLaterAcquisitions() throws Exception {
        try (CuratorFramework impatient = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs(300)
                .retryPolicy(new RetryOneTime(50))
                .build()) {
            impatient.start();
            LockClient client = ZooKeeperLocks.create(
                    ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT), impatient);
            String lockPath = a.lock(LOCK).lockPath();
            Lease held = client.lock(LOCK).acquire(Duration.ofSeconds(5));
            String node = child(
                    lockPath,
                    awaitChildren(observer, lockPath, n -> n.size() == 1).get(0));
            long session = impatient.getZookeeperClient().getZooKeeper().getSessionId();

            server.stop();
            held.close();
            assertThat(held.isValid()).isFalse();
            Thread.sleep(1_500); // an outage several times longer than the client's retry budget
            server.restart();
            assertThat(impatient.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            assertThat(impatient.getZookeeperClient().getZooKeeper().getSessionId())
                    .as("same session: only the client's own retry can delete the node")
                    .isEqualTo(session);

            try (Lease next = client.lock(LOCK).acquire(Duration.ofSeconds(20))) {
                assertThat(next.token()).isGreaterThan(held.token());
                assertThat(observer.checkExists().forPath(node)).isNull();
            }
            awaitDeleted(observer, node);
            try (Lease other = b.lock(LOCK).acquire(Duration.ofSeconds(20))) {
                assertThat(other.isValid()).isTrue();
            }
            client.close();
        }
    }

    private String queuedNode(String lockPath, long holderSession) throws Exception {
        List<String> nodes = awaitChildren(observer, lockPath, n -> n.size() == 2);
        for (String node : nodes) {
            String path = child(lockPath, node);
            if (observer.checkExists().forPath(path).getEphemeralOwner() != holderSession) {
                return path;
            }
        }
        throw new AssertionError("no queued node besides the holder's in " + nodes);
    }

    /**
     * Makes {@code client} give up its session and open a new one while the server keeps the old
     * session, and its ephemeral nodes, for a full session timeout. The expiry is injected on the
     * client ({@link KillSession}) while the server is down, so that nothing the client does while
     * giving up the old session can reach the server; after the restart the server restores the
     * old session from its log. Every lease of every client is revoked by the outage.
     *
     * @return the old session's id
     */
    private long expireOnTheClientOnly(TestClient client) throws Exception {
        long oldSession = client.sessionId();
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch reconnected = new CountDownLatch(1);
        client.curator().getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lost.countDown();
            } else if (state == ConnectionState.RECONNECTED && lost.getCount() == 0) {
                reconnected.countDown();
            }
        });
        server.stop();
        KillSession.kill(client.curator().getZookeeperClient().getZooKeeper());
        await(lost, "session expiry seen by the client");
        server.restart();
        await(reconnected, "reconnection with a new session");
        assertThat(client.sessionId()).isNotEqualTo(oldSession);
        return oldSession;
    }
}
