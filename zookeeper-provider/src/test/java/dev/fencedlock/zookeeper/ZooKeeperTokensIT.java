package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The {@code zookeeper} backend's tokens in the one token order ({@link TokenOrder}): strictly
 * increasing per lock name however fast grants follow each other, and across what restarts
 * ZooKeeper's own counters (a rebuilt ensemble, a token node removed or overwritten by hand).
 */
class ZooKeeperTokensIT {
    private static final String LOCK = "tokens-it";
    private static final String CONTAINER_INTERVAL = "znode.container.checkIntervalMs";

    /**
     * Grants that follow each other within one millisecond of the leader's clock share the clock
     * part; the recorded previous token keeps them apart. Two clients take turns as fast as they
     * can, one always joining the line while the other holds, so that each client's last known
     * version of the token node is stale when it joins (the other wrote it since).
     */
    @Test
    void tokensOfBackToBackGrantsAreStrictlyIncreasing() throws Exception {
        try (TestingServer server = ZooKeeperTestSupport.startServer();
                TestClient a = client(server);
                TestClient b = client(server)) {
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                List<Future<List<Long>>> runs = new ArrayList<>();
                for (TestClient client : List.of(a, b)) {
                    runs.add(threads.submit(() -> {
                        List<Long> tokens = new ArrayList<>();
                        for (int i = 0; i < 100; i++) {
                            try (Lease lease = client.lock(LOCK).acquire(Duration.ofSeconds(30))) {
                                tokens.add(lease.token());
                            }
                        }
                        return tokens;
                    }));
                }
                List<Long> all = new ArrayList<>();
                for (Future<List<Long>> run : runs) {
                    List<Long> tokens = run.get(120, TimeUnit.SECONDS);
                    assertThat(tokens).as("one client's tokens").isSorted().doesNotHaveDuplicates();
                    all.addAll(tokens);
                }
                assertThat(all).as("no token issued twice").doesNotHaveDuplicates();
                CuratorFramework observer = ZooKeeperTestSupport.observer(server.getConnectString());
                try {
                    assertThat(lastIssued(observer, a.lock(LOCK).tokenPath()))
                            .as("the token node names the largest token")
                            .isEqualTo(all.stream()
                                    .mapToLong(Long::longValue)
                                    .max()
                                    .orElseThrow());
                } finally {
                    observer.close();
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * A token is issued when its contender joins the line, in the create's own transaction, not
     * when it is granted: a waiter's token carries the leader's clock at its join. It is above the
     * holder's token before it, and below what any backend issues after the join (the floor of a
     * later clock reading): the order across backends counts from the join ({@link LockTokens}).
     */
    @Test
    void aWaitersTokenCarriesTheClockOfItsJoinNotOfItsGrant() throws Exception {
        try (TestingServer server = ZooKeeperTestSupport.startServer();
                TestClient holder = client(server);
                TestClient waiter = client(server)) {
            CuratorFramework observer = ZooKeeperTestSupport.observer(server.getConnectString());
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try {
                ZooKeeperFencedLock lock = holder.lock(LOCK);
                Lease first = lock.acquire(Duration.ofSeconds(10));
                Future<Lease> second = thread.submit(() -> waiter.lock(LOCK).acquire(Duration.ofSeconds(30)));
                List<String> line = ZooKeeperTestSupport.awaitChildren(observer, lock.lockPath(), n -> n.size() == 2);
                String waiterNode = line.stream()
                        .max(Comparator.comparing(n -> n.substring(n.lastIndexOf("-lock-"))))
                        .orElseThrow();
                long joinMillis = observer.checkExists()
                        .forPath(ZooKeeperTestSupport.child(lock.lockPath(), waiterNode))
                        .getCtime();
                awaitClockPast(TokenOrder.floor(joinMillis));
                long floorAfterJoin = TokenOrder.floor(System.currentTimeMillis());
                first.close();
                try (Lease granted = second.get(30, TimeUnit.SECONDS)) {
                    assertThat(granted.token()).isGreaterThan(first.token());
                    assertThat(TokenOrder.epochMillis(granted.token()))
                            .as("the clock part of the waiter's token is the leader's clock at its join")
                            .isEqualTo(joinMillis);
                    assertThat(granted.token())
                            .as("below the floor of any grant made after the join, though granted after it")
                            .isLessThan(floorAfterJoin);
                }
            } finally {
                thread.shutdownNow();
                observer.close();
            }
        }
    }

    /**
     * A grant costs the server two writes, the create (which records the token in the same
     * transaction) and the delete, as Curator's own mutex: every write takes one transaction id, so
     * ten acquisitions and releases by a client that holds the lock alone move the last
     * transaction id by exactly twenty.
     */
    @Test
    void aGrantCostsTheServerTwoWrites() throws Exception {
        TestingServer started;
        System.setProperty(CONTAINER_INTERVAL, Long.toString(Duration.ofHours(1).toMillis()));
        try {
            started = ZooKeeperTestSupport.startServer(); // no container reaping (a write) meanwhile
        } finally {
            System.clearProperty(CONTAINER_INTERVAL);
        }
        try (TestingServer server = started;
                TestClient client = client(server)) {
            CuratorFramework observer = ZooKeeperTestSupport.observer(server.getConnectString());
            try {
                acquireAndRelease(client, 1); // creates the token node and the container
                long before = probeZxid(observer);
                acquireAndRelease(client, 10);
                assertThat(probeZxid(observer) - before - 1)
                        .as("writes for 10 grants")
                        .isEqualTo(20);
            } finally {
                observer.close();
            }
        }
    }

    /**
     * A rebuilt ensemble (restored from nothing) restarts transaction ids and loses the token
     * nodes: a token taken from a lock node's {@code czxid} would start again near zero. The
     * first token on the new ensemble rests on the clock and is above every earlier one.
     */
    @Test
    void aRebuiltEnsembleContinuesAboveEveryEarlierToken() throws Exception {
        long highest;
        try (TestingServer old = ZooKeeperTestSupport.startServer();
                TestClient client = client(old)) {
            highest = acquireAndRelease(client, 20);
        }
        awaitClockPast(highest);
        try (TestingServer rebuilt = ZooKeeperTestSupport.startServer();
                TestClient client = client(rebuilt)) {
            try (Lease lease = client.lock(LOCK).acquire(Duration.ofSeconds(10))) {
                assertThat(((ZooKeeperLease) lease).czxid())
                        .as("the new ensemble's transaction ids started again")
                        .isLessThan(1_000);
                assertThat(lease.token()).isGreaterThan(highest);
            }
        }
    }

    /**
     * An operator who deletes a token node, or writes something that is no token into it, makes
     * the next token rest on the clock alone, above earlier ones once the clock has moved on.
     */
    @Test
    void aTokenNodeRemovedOrOverwrittenByHandFallsBackToTheClock() throws Exception {
        try (TestingServer server = ZooKeeperTestSupport.startServer();
                TestClient client = client(server)) {
            CuratorFramework observer = ZooKeeperTestSupport.observer(server.getConnectString());
            try {
                long highest = acquireAndRelease(client, 5);
                String tokenPath = client.lock(LOCK).tokenPath();
                observer.setData().forPath(tokenPath, "not a token".getBytes(StandardCharsets.US_ASCII));
                awaitClockPast(highest);
                long afterGarbage = acquireAndRelease(client, 3);
                assertThat(afterGarbage).isGreaterThan(highest);

                observer.delete().forPath(tokenPath);
                awaitClockPast(afterGarbage);
                assertThat(acquireAndRelease(client, 3)).isGreaterThan(afterGarbage);
                assertThat(observer.checkExists().forPath(tokenPath))
                        .as("re-created")
                        .isNotNull();
            } finally {
                observer.close();
            }
        }
    }

    private static TestClient client(TestingServer server) {
        LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10));
        return ZooKeeperTestSupport.client(config);
    }

    /** Acquires and releases the lock {@code times} times; returns the last (largest) token. */
    private static long acquireAndRelease(TestClient client, int times) throws InterruptedException {
        long previous = 0;
        for (int i = 0; i < times; i++) {
            try (Lease lease = client.lock(LOCK).acquire(Duration.ofSeconds(10))) {
                assertThat(lease.token()).isGreaterThan(previous);
                previous = lease.token();
            }
        }
        return previous;
    }

    /** The clock assumption of a fresh start: the clock has moved past the last token's millisecond. */
    private static void awaitClockPast(long token) throws InterruptedException {
        while (System.currentTimeMillis() <= TokenOrder.epochMillis(token)) {
            Thread.sleep(1);
        }
    }

    /**
     * The id of a new transaction that touches nothing of the lock (a {@code setData} on a node of
     * its own): the writes between two probes are the difference less one.
     */
    private static long probeZxid(CuratorFramework observer) throws Exception {
        String probe = "/zxid-probe";
        if (observer.checkExists().forPath(probe) == null) {
            observer.create().forPath(probe);
        }
        return observer.setData().forPath(probe, new byte[0]).getMzxid();
    }

    private static long lastIssued(CuratorFramework observer, String tokenPath) throws Exception {
        org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
        byte[] data = observer.getData().storingStatIn(stat).forPath(tokenPath);
        String previous = new String(data, StandardCharsets.US_ASCII).split(" ")[0];
        return TokenOrder.next(Long.parseLong(previous), stat.getMtime());
    }
}
