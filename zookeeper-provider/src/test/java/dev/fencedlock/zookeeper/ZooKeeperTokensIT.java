package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
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

    /**
     * Grants that follow each other within one millisecond of the leader's clock share the clock
     * part; the recorded previous token keeps them apart. Two clients take turns as fast as they
     * can, one always waiting in line while the other holds, so that the waiter's prefetched read
     * of the token node is stale when it is granted.
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

    private static long lastIssued(CuratorFramework observer, String tokenPath) throws Exception {
        org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
        byte[] data = observer.getData().storingStatIn(stat).forPath(tokenPath);
        return TokenOrder.next(Long.parseLong(new String(data, StandardCharsets.US_ASCII)), stat.getMtime());
    }
}
