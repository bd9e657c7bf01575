package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.zookeeper.LockNodes.NodeRead;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ownership reads go out in batches: many reads queued together cost the server a few
 * requests, not one per read, and each read still gets its own node's answer, also when some of
 * the nodes of a batch are gone; a server without read-only {@code multi} gets single reads.
 */
class BatchedReadsIT {
    private static final int PRESENT = 1_100;
    private static final int MISSING = 100;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private TestingServer server;
    private CuratorFramework curator;
    private BatchedReads reads;

    @BeforeEach
    void connect() throws InterruptedException {
        server = ZooKeeperTestSupport.startServer();
        curator = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        curator.start();
        curator.blockUntilConnected();
        reads = new BatchedReads(scheduler, new SharedSyncs(MonotonicClock.SYSTEM));
    }

    @AfterEach
    void close() throws IOException {
        scheduler.shutdownNow();
        curator.close();
        server.close();
    }

    @Test
    void readsQueuedTogetherAreAnsweredByFewRequestsEachWithItsOwnNode() throws Exception {
        List<Stat> created = new ArrayList<>();
        for (int i = 0; i < PRESENT; i++) {
            Stat stat = new Stat();
            curator.create()
                    .storingStatIn(stat)
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath("/batched/node-" + i);
            created.add(stat);
        }
        ZooKeeper zooKeeper = curator.getZookeeperClient().getZooKeeper();
        AtomicInteger replies = new AtomicInteger();
        long packetsBefore = packetsReceived();

        List<CompletableFuture<NodeRead>> answers = new ArrayList<>();
        for (int i = 0; i < PRESENT + MISSING; i++) {
            answers.add(reads.read(zooKeeper, "/batched/node-" + i, replies::incrementAndGet));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        long requests = packetsReceived() - packetsBefore;
        for (int i = 0; i < PRESENT; i++) {
            Stat stat = answers.get(i).join().stat();
            assertThat(stat).as("node-%s", i).isNotNull();
            assertThat(stat.getCzxid())
                    .as("czxid of node-%s", i)
                    .isEqualTo(created.get(i).getCzxid());
            assertThat(stat.getEphemeralOwner()).isEqualTo(zooKeeper.getSessionId());
        }
        for (int i = PRESENT; i < PRESENT + MISSING; i++) {
            assertThat(answers.get(i).join().stat()).as("missing node-%s", i).isNull();
        }
        assertThat(replies).as("onReply runs once per read").hasValue(PRESENT + MISSING);
        // 1,200 reads: three multi requests of at most 512 and a sync (a slow scheduler may split
        // them into a few more batches); one request per read would be 1,200 or more
        assertThat(requests)
                .as("requests the server received for %s reads", PRESENT + MISSING)
                .isBetween(1L, 40L);
    }

    /**
     * A server older than 3.6 has no read-only {@code multi}. Stood in for by a handle on a real
     * server whose {@code multi} is answered {@code UNIMPLEMENTED}, as such a server answers: the
     * batch fails (each read "cannot tell", never owned), and every later read goes out as a
     * single {@code exists} after the sync and gets its node's answer.
     */
    @Test
    void aServerWithoutReadOnlyMultiGetsSingleReadsAfterTheFirstBatchFails() throws Exception {
        Stat created = new Stat();
        curator.create().storingStatIn(created).creatingParentsIfNeeded().forPath("/old-server/node");
        AtomicInteger multis = new AtomicInteger();
        ZooKeeper oldServer = new ZooKeeper(server.getConnectString(), 10_000, event -> {}) {
            @Override
            public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
                multis.incrementAndGet();
                callback.processResult(KeeperException.Code.UNIMPLEMENTED.intValue(), null, context, null);
            }
        };
        try {
            CompletableFuture<NodeRead> first = reads.read(oldServer, "/old-server/node", () -> {});
            assertThat(first)
                    .failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(KeeperException.UnimplementedException.class);

            NodeRead present =
                    reads.read(oldServer, "/old-server/node", () -> {}).get(30, TimeUnit.SECONDS);
            NodeRead missing =
                    reads.read(oldServer, "/old-server/missing", () -> {}).get(30, TimeUnit.SECONDS);
            assertThat(present.stat()).isNotNull();
            assertThat(present.stat().getCzxid()).isEqualTo(created.getCzxid());
            assertThat(missing.stat()).isNull();
            assertThat(multis).as("multi requests sent").hasValue(1);
        } finally {
            oldServer.close();
        }
    }

    /** The in-process server's count of received packets, from its MBean. */
    private static long packetsReceived() throws Exception {
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> servers = beans.queryNames(new ObjectName("org.apache.ZooKeeperService:name0=*"), null);
        assertThat(servers).as("the in-process server's MBean").hasSize(1);
        return (Long) beans.getAttribute(servers.iterator().next(), "PacketsReceived");
    }
}
