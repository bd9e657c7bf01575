package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ZooKeeper: one client holds many auto-renewing 3 s leases while every reply of the ZooKeeper
 * server reaches it 500 ms late (through {@link TcpProxy#delayReplies}), and loses none of them.
 * Each renewal is an ownership check (a sync and a read) that waits 500 ms for its answer; a check
 * that held one of the lease scheduler's few threads while it waited would renew only a handful
 * of leases a second, so the checks must not block the scheduler.
 *
 * <p>Sizes: {@code faults.zookeeper.leases} (default 300; the {@code scale} profile runs 20,000)
 * leases, {@code faults.zookeeper.slow} (default 10 s) of delayed replies, {@code
 * faults.zookeeper.delay} (default 500 ms).
 */
class ZooKeeperManyLeasesSlowServerIT {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperManyLeasesSlowServerIT.class);
    private static final int LEASES = Integer.getInteger("faults.zookeeper.leases", 300);
    private static final Duration LEASE_TIME = Duration.ofSeconds(3);
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration SLOW = Duration.ofMillis(Long.getLong("faults.zookeeper.slow", 10_000));
    private static final Duration DELAY = Duration.ofMillis(Long.getLong("faults.zookeeper.delay", 500));
    private static final int ACQUIRING_THREADS = 16;

    @Test
    void aServerWhoseEveryReplyIsLateCostsNoLease() throws Exception {
        Set<String> lost = ConcurrentHashMap.newKeySet();
        List<Lease> leases = new ArrayList<>(LEASES);
        ExecutorService acquirers = Executors.newFixedThreadPool(ACQUIRING_THREADS);
        try (TestingServer server = ZooKeeperServers.start();
                TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getPort());
                LockClient client = LockClient.create(
                        ZooKeeperSetup.config("127.0.0.1:" + proxy.port(), SESSION_TIMEOUT, LEASE_TIME)
                                .build())) {
            List<Future<Lease>> grants = new ArrayList<>(LEASES);
            for (int i = 0; i < LEASES; i++) {
                String name = "faults:zk-many:" + i;
                grants.add(acquirers.submit(() -> client.lock(name).acquire(Duration.ofSeconds(60))));
            }
            for (Future<Lease> grant : grants) {
                Lease lease = grant.get(5, TimeUnit.MINUTES);
                lease.onLost((l, cause) -> lost.add(l.lockName() + ": " + cause.getMessage()));
                leases.add(lease);
            }
            log.info("{} leases held, {} lost so far; delaying every reply by {}", leases.size(), lost.size(), DELAY);
            proxy.delayReplies(DELAY);
            try {
                // the fault is a span of time: the leases must outlive it
                Thread.sleep(SLOW.toMillis());
            } finally {
                proxy.pass();
            }
            // two more renewal periods with prompt replies, so that renewals due then also ran
            Thread.sleep(LEASE_TIME.multipliedBy(2).dividedBy(3).toMillis());
            log.info("replies prompt again, {} leases lost", lost.size());

            assertThat(lost)
                    .as("leases lost of %s while every reply was %s late", LEASES, DELAY)
                    .isEmpty();
            assertThat(leases.stream().filter(lease -> !lease.isValid()).count())
                    .as("leases no longer valid")
                    .isZero();
            for (Lease lease : leases) {
                lease.close();
            }
        } finally {
            acquirers.shutdownNow();
        }
    }
}
