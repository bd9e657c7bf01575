package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A holder connected only to a follower that is cut off from the leader. Such a
 * follower keeps answering plain reads for {@code tickTime x syncLimit} (10 s with the stock 2 s
 * tick and sync limit 5, used here), while the leader expires the holder's session after the
 * session timeout (6 s here) and grants the lock to a client on the other servers. The ownership
 * check's {@code sync} cannot pass the cut, so the holder's lease runs out first: when the other
 * client is granted, the holder's lease is already invalid and its loss has been reported.
 *
 * <p>The first server (never the leader: with equal histories the highest server id wins) sees the
 * other two through {@link TcpProxy}s: its configuration lists their quorum and election ports as
 * proxy ports, so its connection to the leader runs through a proxy that the test blackholes.
 */
class FollowerCutOffIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);
    private static final int STOCK_TICK_MS = 2_000;
    /** Stock values; Curator's test cluster would otherwise lower the minimum session timeout to one tick. */
    private static final Map<String, Object> STOCK =
            Map.of("minSessionTimeout", Integer.toString(2 * STOCK_TICK_MS), "syncLimit", "5", "initLimit", "10");

    private final List<TcpProxy> proxies = new ArrayList<>();
    private final Map<Integer, TcpProxy> quorumProxies = new LinkedHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestingCluster cluster;
    private List<InstanceSpec> servers;

    @BeforeEach
    void startCluster() throws Exception {
        servers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            servers.add(spec(id, -1, -1, -1));
        }
        InstanceSpec cutOff = servers.get(0);
        List<InstanceSpec> cutOffsView = new ArrayList<>(List.of(cutOff));
        for (InstanceSpec other : servers.subList(1, 3)) {
            TcpProxy quorum = proxy(other.getQuorumPort());
            TcpProxy election = proxy(other.getElectionPort());
            quorumProxies.put(other.getServerId(), quorum);
            cutOffsView.add(spec(other.getServerId(), other.getPort(), election.port(), quorum.port()));
        }
        Map<InstanceSpec, Collection<InstanceSpec>> views = new LinkedHashMap<>();
        views.put(cutOff, cutOffsView);
        views.put(servers.get(1), servers);
        views.put(servers.get(2), servers);
        cluster = new TestingCluster(views);
        cluster.start();
        for (InstanceSpec spec : servers) {
            ZooKeeperServers.awaitServing(spec, ZooKeeperTestSupport.EVENT_TIMEOUT);
        }
    }

    @AfterEach
    void stopCluster() throws Exception {
        threads.shutdownNow();
        proxies.forEach(TcpProxy::close);
        cluster.close();
    }

    @Test
    void holderOnAFollowerCutOffFromTheLeaderIsInvalidBeforeAnotherClientIsGranted() throws Exception {
        InstanceSpec follower = servers.get(0);
        InstanceSpec leader = ZooKeeperServers.leader(cluster);
        assertThat(leader).as("the proxied server is a follower").isNotEqualTo(follower);
        String others = servers.stream()
                .filter(spec -> spec != follower)
                .map(InstanceSpec::getConnectString)
                .collect(Collectors.joining(","));
        try (TestClient holder = client(follower.getConnectString());
                TestClient other = client(others);
                CuratorFramework observer = ZooKeeperTestSupport.observer(others)) {
            String lock = "cut-off-follower";
            Lease held = holder.lock(lock).acquire(Duration.ofSeconds(30));
            CountDownLatch lost = new CountDownLatch(1);
            AtomicLong lostAt = new AtomicLong();
            held.onLost((lease, cause) -> {
                lostAt.set(System.nanoTime());
                lost.countDown();
            });
            Future<Lease> waiter = threads.submit(() -> other.lock(lock).acquire(Duration.ofSeconds(60)));
            ZooKeeperTestSupport.awaitChildren(observer, holder.lock(lock).lockPath(), nodes -> nodes.size() == 2);

            quorumProxies.get(leader.getServerId()).blackhole();

            Lease granted = waiter.get(60, TimeUnit.SECONDS);
            long grantedAt = System.nanoTime();
            boolean holderValidAtGrant = held.isValid();
            long lossCount = lost.getCount();
            assertThat(holderValidAtGrant)
                    .as("the cut-off holder's lease is already invalid when the other client is granted")
                    .isFalse();
            assertThat(lossCount).as("onLost has fired by then").isZero();
            assertThat(lostAt.get() - grantedAt).isNegative();
            assertThat(granted.token()).isGreaterThan(held.token());
            granted.close();
        }
    }

    private TcpProxy proxy(int port) {
        TcpProxy proxy = TcpProxy.start("127.0.0.1", port);
        proxies.add(proxy);
        return proxy;
    }

    private static InstanceSpec spec(int id, int clientPort, int electionPort, int quorumPort) {
        return new InstanceSpec(
                null, clientPort, electionPort, quorumPort, true, id, STOCK_TICK_MS, -1, STOCK, "127.0.0.1");
    }

    private static TestClient client(String connect) throws InterruptedException {
        LockConfig config = ZooKeeperTestSupport.config(connect, SESSION_TIMEOUT);
        TestClient client = ZooKeeperTestSupport.client(config);
        client.awaitConnected();
        return client;
    }
}
