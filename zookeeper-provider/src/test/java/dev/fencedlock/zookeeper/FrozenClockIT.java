package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * What {@link SessionBound} does not promise: a grant's end is measured on the monotonic clock, so
 * where that clock stops while the process is frozen (a suspended host, a VM whose pause the guest
 * clock does not see) the lease looks valid for up to the bound after the freeze, although the
 * server expired the session meanwhile and another client holds the lock. Only the fencing token
 * keeps data safe then: the new holder's token is larger, so the fence refuses the frozen one.
 *
 * <p>The freeze is simulated in one process: the holder's monotonic clock stops, its connection
 * watch hears nothing (a frozen process handles no events), and the server is made to end the
 * holder's session. A SIGSTOP of a whole JVM does not stop its monotonic clock ({@link
 * ProcessPauseIT} shows the lease then ends on time). The session timeout is long so that no
 * scheduled ownership check comes within the test.
 */
class FrozenClockIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofMinutes(10);

    @Test
    void aFrozenMonotonicClockKeepsALeaseValidAfterItsSessionEndedAndOnlyTheTokenTellsTheHolders() throws Exception {
        InstanceSpec spec = new InstanceSpec(
                null,
                -1,
                -1,
                -1,
                true,
                -1,
                ZooKeeperServers.TICK_MS,
                -1,
                Map.of("maxSessionTimeout", Long.toString(SESSION_TIMEOUT.toMillis()), "forceSync", "no"),
                null);
        try (TestingServer server = new TestingServer(spec, true)) {
            LockConfig config = ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT);
            FreezableClock clock = new FreezableClock();
            AtomicBoolean frozen = new AtomicBoolean();
            ConnectionWatch frozenWatch = new ConnectionWatch() {
                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
                    if (!frozen.get()) {
                        super.stateChanged(client, newState);
                    }
                }
            };
            CuratorFramework curator = ZooKeeperProviderFactory.curatorBuilder(
                            server.getConnectString(), (int) SESSION_TIMEOUT.toMillis())
                    .build();
            curator.start();
            try (LeaseRuntime runtime = new LeaseRuntime(config, clock);
                    ZooKeeperLockProvider provider = new ZooKeeperLockProvider(
                            curator,
                            true,
                            ZooKeeperSettings.from(config.settings(ZooKeeperLocks.BACKEND)),
                            runtime,
                            frozenWatch);
                    TestClient other = ZooKeeperTestSupport.client(config)) {
                String lock = "frozen-clock";
                Lease held = provider.lock(lock).acquire(Duration.ofSeconds(10), Duration.ofMinutes(30));
                assertThat(held.isValid()).isTrue();

                frozen.set(true);
                clock.freeze();
                endSessionOnTheServer(curator, server.getConnectString());

                try (Lease next = other.lock(lock).acquire(Duration.ofSeconds(60))) {
                    assertThat(held.isValid())
                            .as("the frozen holder still believes its lease valid: the assumption is broken")
                            .isTrue();
                    assertThat(next.token())
                            .as("the fence tells the holders apart: the new token is larger")
                            .isGreaterThan(held.token());
                }
            }
        }
    }

    /**
     * Ends the holder's session from the server's side, as the server's expiry would: a second
     * handle joins the session with its id and password and closes it, which deletes its nodes.
     */
    private static void endSessionOnTheServer(CuratorFramework holder, String connect) throws Exception {
        ZooKeeper handle = holder.getZookeeperClient().getZooKeeper();
        CountDownLatch joined = new CountDownLatch(1);
        ZooKeeper intruder = new ZooKeeper(
                connect,
                (int) SESSION_TIMEOUT.toMillis(),
                event -> {
                    if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                        joined.countDown();
                    }
                },
                handle.getSessionId(),
                handle.getSessionPasswd());
        assertThat(joined.await(ZooKeeperTestSupport.EVENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                .as("joined the holder's session")
                .isTrue();
        intruder.close();
    }

    /** The runtime's monotonic clock, which a test can stop. */
    private static final class FreezableClock implements MonotonicClock {
        private volatile long frozenAt = Long.MIN_VALUE;

        void freeze() {
            frozenAt = System.nanoTime();
        }

        @Override
        public long nanoTime() {
            long at = frozenAt;
            return at == Long.MIN_VALUE ? System.nanoTime() : at;
        }
    }
}
