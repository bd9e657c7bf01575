package dev.fencedlock.testkit.faults;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.io.IOException;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** An in-process ZooKeeper server (Curator's {@code TestingServer}); the data on PostgreSQL. */
class ZooKeeperStaleHolderIT extends StaleHolderScenarios {
    private static TestingServer server;

    @BeforeAll
    static void start() {
        server = ZooKeeperServers.start();
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    private static ZooKeeperSettings settings() {
        return ZooKeeperSettings.builder().connect(server.getConnectString()).build();
    }

    @Override
    LockClient newClient() {
        return ZooKeeperLocks.create(settings());
    }

    @Override
    StaleHolders staleHolders() {
        return StaleHolders.zookeeper(settings());
    }

    @Override
    FencedStock newStock() {
        return new FencedStock(TestDatabase.Kind.POSTGRESQL);
    }
}
