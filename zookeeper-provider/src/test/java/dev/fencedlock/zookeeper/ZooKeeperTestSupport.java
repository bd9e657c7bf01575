package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LockClients;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** Servers, clients and event-driven waits shared by this module's integration tests. */
final class ZooKeeperTestSupport {
    /** Upper bound for any wait on an event that must happen; reaching it fails the test. */
    static final Duration EVENT_TIMEOUT = Duration.ofSeconds(30);

    private ZooKeeperTestSupport() {}

    static TestingServer startServer() {
        return ZooKeeperServers.start();
    }

    static LockConfig config(String connect, Duration sessionTimeout) {
        return LockConfig.builder()
                .backend(ZooKeeperLocks.BACKEND)
                .set(ZooKeeperSettings.CONNECT, connect)
                .set(ZooKeeperSettings.SESSION_TIMEOUT, sessionTimeout)
                .leaseTime(Duration.ofSeconds(30))
                .build();
    }

    /** A lock client whose provider (and so its own Curator client) the test can reach. */
    static TestClient client(LockConfig config) {
        ZooKeeperLockProvider[] provider = new ZooKeeperLockProvider[1];
        LockClient client = LockClients.create(config, runtime -> {
            provider[0] = (ZooKeeperLockProvider) new ZooKeeperProviderFactory().create(config, runtime);
            return provider[0];
        });
        return new TestClient(client, provider[0]);
    }

    /**
     * As {@link #client(LockConfig)}, with the given connection watch, on a Curator client built as
     * the factory builds its own (and closed with the lock client).
     */
    static TestClient client(LockConfig config, ConnectionWatch watch) {
        ZooKeeperSettings settings = ZooKeeperSettings.from(config.settings(ZooKeeperLocks.BACKEND));
        CuratorFramework curator = ZooKeeperProviderFactory.curatorBuilder(
                        settings.connect().orElseThrow(),
                        (int) settings.sessionTimeout().toMillis())
                .build();
        curator.start();
        ZooKeeperLockProvider[] provider = new ZooKeeperLockProvider[1];
        LockClient client = LockClients.create(config, runtime -> {
            provider[0] = new ZooKeeperLockProvider(curator, true, settings, runtime, watch);
            return provider[0];
        });
        return new TestClient(client, provider[0]);
    }

    record TestClient(LockClient client, ZooKeeperLockProvider provider) implements AutoCloseable {
        CuratorFramework curator() {
            return provider.curator();
        }

        ZooKeeperFencedLock lock(String name) {
            return (ZooKeeperFencedLock) client.lock(name);
        }

        long sessionId() throws Exception {
            return curator().getZookeeperClient().getZooKeeper().getSessionId();
        }

        void awaitConnected() throws InterruptedException {
            assertThat(curator().blockUntilConnected((int) EVENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("connected within %s", EVENT_TIMEOUT)
                    .isTrue();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A plain Curator client for observing and manipulating znodes as an operator would. */
    static CuratorFramework observer(String connect) throws InterruptedException {
        CuratorFramework curator =
                CuratorFrameworkFactory.newClient(connect, 10_000, 5_000, new ExponentialBackoffRetry(100, 10, 1_000));
        curator.start();
        assertThat(curator.blockUntilConnected((int) EVENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        return curator;
    }

    /** Waits, with child watches, until the children of {@code path} satisfy {@code condition}. */
    static List<String> awaitChildren(CuratorFramework observer, String path, Predicate<List<String>> condition)
            throws Exception {
        long deadline = System.nanoTime() + EVENT_TIMEOUT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            List<String> children;
            try {
                children = observer.getChildren()
                        .usingWatcher((org.apache.zookeeper.Watcher) event -> changed.countDown())
                        .forPath(path);
            } catch (KeeperException.NoNodeException e) {
                children = List.of();
                if (observer.checkExists()
                                .usingWatcher((org.apache.zookeeper.Watcher) event -> changed.countDown())
                                .forPath(path)
                        != null) {
                    continue;
                }
            }
            if (condition.test(children)) {
                return children;
            }
            long left = deadline - System.nanoTime();
            assertThat(left > 0 && changed.await(left, TimeUnit.NANOSECONDS))
                    .as(
                            "children of %s reached the expected state within %s; last seen %s",
                            path, EVENT_TIMEOUT, children)
                    .isTrue();
        }
    }

    /** Waits, with an existence watch, until {@code path} no longer exists. */
    static void awaitDeleted(CuratorFramework observer, String path) throws Exception {
        long deadline = System.nanoTime() + EVENT_TIMEOUT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            Stat stat = observer.checkExists()
                    .usingWatcher((org.apache.zookeeper.Watcher) event -> changed.countDown())
                    .forPath(path);
            if (stat == null) {
                return;
            }
            long left = deadline - System.nanoTime();
            assertThat(left > 0 && changed.await(left, TimeUnit.NANOSECONDS))
                    .as("%s deleted within %s", path, EVENT_TIMEOUT)
                    .isTrue();
        }
    }

    static String child(String parent, String child) {
        return ZKPaths.makePath(parent, child);
    }

    static void await(CountDownLatch latch, String what) throws InterruptedException {
        Await.latch(latch, EVENT_TIMEOUT, what);
    }
}
