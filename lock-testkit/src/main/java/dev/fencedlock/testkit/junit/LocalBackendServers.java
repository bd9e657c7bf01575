package dev.fencedlock.testkit.junit;

import dev.fencedlock.testkit.redis.RedisServers;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.curator.test.TestingServer;

/** Servers without Docker: {@code redis-server} child processes, an in-process ZooKeeper. */
final class LocalBackendServers {
    private LocalBackendServers() {}

    static BackendServers redis(int nodes) {
        RedisServers servers = RedisServers.start(nodes);
        try {
            servers.awaitUptime(BackendServers.REDLOCK_TEST_LEASE);
        } catch (InterruptedException e) {
            servers.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting redis-server", e);
        } catch (RuntimeException | Error e) {
            servers.close();
            throw e;
        }
        return new BackendServers(
                BackendServers.redlock(servers.nodes()), nodes + " redis-server processes", servers::close);
    }

    private static void closeQuietly(TestingServer server) {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static BackendServers zookeeper() {
        TestingServer server = ZooKeeperServers.start();
        return new BackendServers(
                BackendServers.zookeeper(server.getConnectString()),
                "an in-process ZooKeeper server",
                () -> closeQuietly(server));
    }
}
