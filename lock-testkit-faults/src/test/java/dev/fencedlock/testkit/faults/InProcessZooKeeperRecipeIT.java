package dev.fencedlock.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The in-process ZooKeeper of a plain-Java application's tests, with nothing but {@code
 * curator-test} (managed by the BOM) and {@code zookeeper-provider}: the lines a user copies, run
 * as they are, and a stale holder made on it.
 */
class InProcessZooKeeperRecipeIT {

    @Test
    void aTestingServerAndZooKeeperLocksGrantFencedLeases() throws Exception {
        try (TestingServer zooKeeper = new TestingServer();
                LockClient locks = ZooKeeperLocks.create(ZooKeeperSettings.builder()
                        .connect(zooKeeper.getConnectString())
                        .build());
                LockClient others = ZooKeeperLocks.create(ZooKeeperSettings.builder()
                        .connect(zooKeeper.getConnectString())
                        .build())) {
            try (Lease old = locks.lock("sku-42").acquire(Duration.ofSeconds(5), Duration.ofSeconds(30))) {
                StaleHolders.zookeeper(ZooKeeperSettings.builder()
                                .connect(zooKeeper.getConnectString())
                                .build())
                        .takeAway(old);
                try (Lease newer = others.lock("sku-42").acquire(Duration.ofSeconds(5))) {
                    assertThat(old.isValid()).isTrue();
                    assertThat(newer.token()).isGreaterThan(old.token());
                }
            }
        }
    }
}
