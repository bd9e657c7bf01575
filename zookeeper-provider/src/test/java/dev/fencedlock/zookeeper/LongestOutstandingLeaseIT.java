package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ZooKeeperLockProvider#longestOutstandingLease()}: once the server stops answering, no
 * lease it granted is valid longer than that figure, five twelfths of the session timeout. The
 * session timeout here (6 s) makes the ZooKeeper client notice the silence only after 4 s (two
 * thirds of it), later than the figure (2.5 s): the leases end by their own validity, not by
 * Curator's connection-loss detection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LongestOutstandingLeaseIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);
    private static final Duration MARGIN = Duration.ofSeconds(1);

    private TestingServer server;
    private TcpProxy proxy;
    private TestClient client;

    @BeforeEach
    void connect() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        proxy = TcpProxy.start("127.0.0.1", server.getPort());
        LockConfig config = ZooKeeperTestSupport.config("127.0.0.1:" + proxy.port(), SESSION_TIMEOUT);
        client = ZooKeeperTestSupport.client(config);
        client.awaitConnected();
    }

    @AfterEach
    void close() throws Exception {
        proxy.pass();
        client.close();
        proxy.close();
        server.close();
    }

    @Test
    void isFiveTwelfthsOfTheSessionTimeout() {
        assertThat(client.provider().longestOutstandingLease())
                .contains(Duration.ofMillis(SESSION_TIMEOUT.toMillis() * 5 / 12));
    }

    @Test
    void noLeaseOutlivesItOnceTheServerFallsSilent() throws Exception {
        Duration figure = client.provider().longestOutstandingLease().orElseThrow();
        Lease renewing = client.lock("outstanding:renewing").acquire(Duration.ofSeconds(10));
        Lease fixed = client.lock("outstanding:fixed").acquire(Duration.ofSeconds(10), Duration.ofMinutes(1));
        CompletableFuture<Long> renewingLost = lostAt(renewing);
        CompletableFuture<Long> fixedLost = lostAt(fixed);
        Thread.sleep(figure.toMillis() / 2); // renewals and checks have run since the grants

        proxy.blackhole();
        long silence = System.nanoTime();
        long end = silence + figure.toNanos();
        for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
        assertThat(renewing.isValid())
                .as("the auto-renewing lease, %s after the silence began", figure)
                .isFalse();
        assertThat(fixed.isValid())
                .as("the fixed one-minute lease, %s after the silence began", figure)
                .isFalse();

        long renewingMillis = TimeUnit.NANOSECONDS.toMillis(renewingLost.get(10, TimeUnit.SECONDS) - silence);
        long fixedMillis = TimeUnit.NANOSECONDS.toMillis(fixedLost.get(10, TimeUnit.SECONDS) - silence);
        System.out.printf(
                "zookeeper longestOutstandingLease %d ms (session %d ms): onLost after the silence began:"
                        + " auto-renewing %d ms, fixed 1 min %d ms%n",
                figure.toMillis(), SESSION_TIMEOUT.toMillis(), renewingMillis, fixedMillis);
        assertThat(renewingMillis).isLessThanOrEqualTo(figure.plus(MARGIN).toMillis());
        assertThat(fixedMillis).isLessThanOrEqualTo(figure.plus(MARGIN).toMillis());
        assertThat(client.provider().watch().interruptions())
                .as("the leases ended by their own bound, before the client noticed the silence")
                .isZero();
    }

    private static CompletableFuture<Long> lostAt(Lease lease) {
        CompletableFuture<Long> lost = new CompletableFuture<>();
        lease.onLost((l, cause) -> lost.complete(System.nanoTime()));
        return lost;
    }
}
