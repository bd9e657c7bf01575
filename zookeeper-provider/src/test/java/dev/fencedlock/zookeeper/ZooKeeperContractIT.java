package dev.fencedlock.zookeeper;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.LockContractTest;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract on one real ZooKeeper server. */
class ZooKeeperContractIT extends LockContractTest {
    private static TestingServer server;
    private static CuratorFramework operator;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        operator = ZooKeeperTestSupport.observer(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        operator.close();
        server.close();
    }

    @Override
    protected LockConfig.Builder configuration() {
        return LockConfig.builder()
                .backend(ZooKeeperLocks.BACKEND)
                .set(ZooKeeperSettings.CONNECT, server.getConnectString())
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(10));
    }

    /** Deletes the lease's lock node as an operator would; the holder's next renewal finds it gone. */
    @Override
    protected void breakLease(Lease lease) throws Exception {
        operator.delete().forPath(((ZooKeeperLease) lease).nodePath());
    }
}
