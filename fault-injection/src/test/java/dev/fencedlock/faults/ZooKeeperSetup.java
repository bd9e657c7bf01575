package dev.fencedlock.faults;

import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.time.Duration;

/** ZooKeeper clients for the scenarios; the servers come from {@link ZooKeeperServers}. */
final class ZooKeeperSetup {
    private ZooKeeperSetup() {}

    static LockConfig.Builder config(String connect, Duration sessionTimeout, Duration leaseTime) {
        return LockConfig.builder()
                .backend("zookeeper")
                .set(ZooKeeperSettings.CONNECT, connect)
                .set(ZooKeeperSettings.SESSION_TIMEOUT, sessionTimeout)
                .leaseTime(leaseTime);
    }
}
